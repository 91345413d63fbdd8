package dev.usher.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.cert.CertifiedKey;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlsContextsTest {
    private final TestPki pki = new TestPki();

    @Test
    void usesBoringSslWhenItLoadsAndTheJdkWhenAsked() {
        assertThat(new TlsContexts(TlsContexts.HTTP_PROTOCOLS).provider())
                .isEqualTo(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
        assertThat(new TlsContexts(TlsContexts.HTTP_PROTOCOLS, false).provider()).isEqualTo(SslProvider.JDK);
    }

    @Test
    void cachesByCertificateIdentityAndOffersTheGivenProtocols() throws Exception {
        TlsContexts contexts = new TlsContexts(List.of("http/1.1"));
        CertifiedKey key = pki.leaf("a.test");
        SslContext first = contexts.serverContext(key);
        assertThat(contexts.serverContext(key)).isSameAs(first);
        assertThat(first.applicationProtocolNegotiator().protocols()).containsExactly("http/1.1");
        // the same chain and key in a new object, as a reload would make, is a new context
        assertThat(contexts.serverContext(new CertifiedKey(key.chain(), key.key()))).isNotSameAs(first);
        assertThat(contexts.challengeContext(key).applicationProtocolNegotiator().protocols())
                .containsExactly("acme-tls/1");
    }

    @Test
    void cacheForgetsTheLeastRecentlyUsedBeyondItsCapacity() throws Exception {
        CertifiedKey a = pki.leaf("a.test");
        CertifiedKey b = pki.leaf("b.test");
        TlsContexts contexts = new TlsContexts(TlsContexts.HTTP_PROTOCOLS);
        java.util.concurrent.atomic.AtomicInteger builds = new java.util.concurrent.atomic.AtomicInteger();
        ContextCache cache = new ContextCache(1, key -> {
            builds.incrementAndGet();
            return contexts.serverContext(key);
        });
        cache.get(a);
        cache.get(a);
        assertThat(builds).hasValue(1);
        cache.get(b);
        assertThat(cache.size()).isEqualTo(1);
        cache.get(a);
        assertThat(builds).as("a was evicted by b and built again").hasValue(3);
    }
}
