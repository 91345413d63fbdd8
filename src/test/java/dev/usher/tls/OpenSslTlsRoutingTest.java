package dev.usher.tls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import org.junit.jupiter.api.BeforeAll;

/** The routing tests on BoringSSL (netty-tcnative), skipped where it does not load. */
class OpenSslTlsRoutingTest extends TlsRoutingTests {
    @BeforeAll
    static void boringSslLoads() {
        assumeTrue(OpenSsl.isAvailable(), () -> "BoringSSL unavailable: " + OpenSsl.unavailabilityCause());
    }

    @Override
    boolean openSsl() {
        return true;
    }
}
