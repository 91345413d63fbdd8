package dev.usher.tls;

import dev.usher.cert.CertificateSource;
import dev.usher.cert.CertifiedKey;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.util.Mapping;
import java.util.Locale;
import javax.net.ssl.SSLException;

/**
 * The certificates of the QUIC (HTTP/3) listener, chosen by SNI from the same {@link CertificateSource} as the TCP
 * listener's: {@link #sniContext()} is handed to the QUIC codec, and BoringSSL asks {@link #map} for each handshake's
 * server name. A renewed certificate is a new {@link CertifiedKey}, so the next handshake gets a context built from
 * it, exactly as on TCP; contexts are cached by key identity ({@link ContextCache}).
 *
 * <p>No name, no certificate: a handshake without SNI, or for a name Usher has no certificate for, fails (no default
 * certificate that would show other names). TLS-ALPN-01 validation runs over TCP only. TLS 1.3 is QUIC's own.
 *
 * <p>Thread-safe: called on the event loop that owns the UDP socket.
 */
public final class QuicContexts implements Mapping<String, QuicSslContext> {
    private static final System.Logger LOG = System.getLogger(QuicContexts.class.getName());
    /** As many as the TCP side keeps; beyond it the least recently served certificate is rebuilt. */
    private static final int CONTEXTS = 4096;

    private final CertificateSource source;
    private final ContextCache contexts = new ContextCache(CONTEXTS, QuicContexts::build);

    /** @param source what certificate serves which name: the same one the TCP listener asks */
    public QuicContexts(CertificateSource source) {
        this.source = source;
    }

    /** The context the QUIC codec starts every handshake with; it defers to {@link #map} once the SNI is known. */
    public QuicSslContext sniContext() {
        // QuicSslContextBuilder.buildForServerWithSni, without its default trust anchors (see ServerKeys)
        return QuicSslContextBuilder.forServer(ServerKeys.NONE, null).sni(this)
                .trustManager(ServerKeys.NO_TRUST_ANCHORS).build();
    }

    /** The context for {@code serverName}, or null (the handshake fails) when Usher has no certificate for it. */
    @Override
    public QuicSslContext map(String serverName) {
        if (serverName == null || serverName.isEmpty()) {
            return null;
        }
        String name = serverName.toLowerCase(Locale.ROOT);
        CertifiedKey key = source.certificateFor(name);
        if (key == null) {
            LOG.log(System.Logger.Level.DEBUG, "QUIC: no certificate for {0}", name);
            return null;
        }
        try {
            return (QuicSslContext) contexts.get(key);
        } catch (SSLException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "QUIC: cannot build a TLS context for " + name, e);
            return null;
        }
    }

    private static QuicSslContext build(CertifiedKey key) {
        return QuicSslContextBuilder.forServer(ServerKeys.of(key), null)
                .trustManager(ServerKeys.NO_TRUST_ANCHORS)
                .applicationProtocols(Http3.supportedApplicationProtocols())
                .earlyData(false)
                .build();
    }
}
