package dev.usher.tls;

/** The routing tests on the JDK's TLS provider, Usher's fallback where BoringSSL does not load. */
class JdkTlsRoutingTest extends TlsRoutingTests {
    @Override
    boolean openSsl() {
        return false;
    }
}
