package dev.usher.tls;

import dev.usher.cert.CertifiedKey;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolConfig.Protocol;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior;
import io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * Builds and caches the server {@link SslContext}s that TLS connections are served with: one per certificate for
 * normal traffic (ALPN offering the protocols given at construction) and one per TLS-ALPN-01 challenge certificate
 * (ALPN offering only {@code acme-tls/1}, RFC 8737).
 *
 * <p>BoringSSL (netty-tcnative) is used when it loads, the JDK's TLS otherwise; which one and why is logged once, here.
 * TLS 1.2 and 1.3 only, with forward-secret AEAD suites for 1.2 (Mozilla "intermediate" without DHE).
 *
 * <p>Thread-safe; called from event loops. Building a context for a certificate seen for the first time takes a few
 * milliseconds, later lookups are a map hit.
 */
public final class TlsContexts {
    /** The protocols a listener for HTTP over TCP offers, preferred first. */
    public static final List<String> HTTP_PROTOCOLS = List.of("h2", "http/1.1");
    /** The only protocol of a TLS-ALPN-01 validation handshake (RFC 8737). */
    public static final String ACME_TLS_1 = "acme-tls/1";

    private static final System.Logger LOG = System.getLogger(TlsContexts.class.getName());
    private static final String[] TLS_VERSIONS = {"TLSv1.3", "TLSv1.2"};
    /** TLS 1.3 suites (the JDK provider needs them listed) then ECDHE + AES-GCM / ChaCha20 for TLS 1.2. */
    private static final List<String> CIPHERS = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");
    /** Enough for every name of a large server; beyond it the least recently served certificate is rebuilt. */
    private static final int SERVER_CONTEXTS = 4096;
    /** Challenge certificates live for minutes and are few at a time. */
    private static final int CHALLENGE_CONTEXTS = 64;

    private final SslProvider provider;
    private final ContextCache servers;
    private final ContextCache challenges;

    /** Contexts offering {@code applicationProtocols} by ALPN, on BoringSSL when it loads. */
    public TlsContexts(List<String> applicationProtocols) {
        this(applicationProtocols, true);
    }

    /**
     * @param applicationProtocols the ALPN protocols offered to normal clients, preferred first; not empty
     * @param openSslIfAvailable   false forces the JDK provider (tests run both)
     */
    public TlsContexts(List<String> applicationProtocols, boolean openSslIfAvailable) {
        if (applicationProtocols.isEmpty()) {
            throw new IllegalArgumentException("at least one application protocol is needed");
        }
        this.provider = chooseProvider(openSslIfAvailable);
        ApplicationProtocolConfig http = alpn(List.copyOf(applicationProtocols));
        ApplicationProtocolConfig acme = alpn(List.of(ACME_TLS_1));
        this.servers = new ContextCache(SERVER_CONTEXTS, key -> build(key, http));
        this.challenges = new ContextCache(CHALLENGE_CONTEXTS, key -> build(key, acme));
    }

    /** The provider every context of this instance is built with. */
    public SslProvider provider() {
        return provider;
    }

    /** The context for serving {@code key} to normal clients; the same object for the same key while cached. */
    public SslContext serverContext(CertifiedKey key) throws SSLException {
        return servers.get(key);
    }

    /** The context for answering a TLS-ALPN-01 validation with {@code challenge}: ALPN {@code acme-tls/1} only. */
    public SslContext challengeContext(CertifiedKey challenge) throws SSLException {
        return challenges.get(challenge);
    }

    private static SslProvider chooseProvider(boolean openSslIfAvailable) {
        if (!openSslIfAvailable) {
            LOG.log(System.Logger.Level.INFO, "TLS: JDK provider (BoringSSL not requested)");
            return SslProvider.JDK;
        }
        if (OpenSsl.isAvailable()) {
            LOG.log(System.Logger.Level.INFO, "TLS: BoringSSL ({0})", OpenSsl.versionString());
            return SslProvider.OPENSSL;
        }
        LOG.log(System.Logger.Level.INFO, "TLS: JDK provider, BoringSSL did not load: {0}",
                String.valueOf(OpenSsl.unavailabilityCause()));
        return SslProvider.JDK;
    }

    private static ApplicationProtocolConfig alpn(List<String> protocols) {
        // NO_ADVERTISE + ACCEPT is the one combination both providers support: a client offering none of ours
        // gets no ALPN answer and the after-TLS handler falls back (to HTTP/1.1).
        return new ApplicationProtocolConfig(Protocol.ALPN, SelectorFailureBehavior.NO_ADVERTISE,
                SelectedListenerFailureBehavior.ACCEPT, protocols);
    }

    private SslContext build(CertifiedKey key, ApplicationProtocolConfig alpn) throws SSLException {
        // OPENSSL, not OPENSSL_REFCNT: see ContextCache for why contexts are left to the garbage collector.
        return SslContextBuilder.forServer(key.key(), key.chain().toArray(new X509Certificate[0]))
                // The builder puts the key in an in-memory key store to hand it on. The default type, PKCS12,
                // protects it with 10,000 rounds of PBKDF2 going in and again coming out: a third of a second
                // on a cold start, ahead of the first HTTPS answer. JKS's protection costs next to nothing, and
                // this store never leaves memory.
                .keyStoreType("JKS")
                // No client certificates are asked for, so no trust anchors are needed: the default would load
                // and parse the JDK's whole cacerts file for nothing, and list its CAs in the context.
                .trustManager(ServerKeys.NO_TRUST_ANCHORS)
                .sslProvider(provider)
                .protocols(TLS_VERSIONS)
                .ciphers(CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .applicationProtocolConfig(alpn)
                .build();
    }
}
