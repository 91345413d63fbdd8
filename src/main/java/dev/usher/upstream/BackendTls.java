package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.config.UpstreamTls;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The client TLS contexts Usher speaks to {@code https://} backends with: one per distinct {@code upstream_tls}
 * (and ALPN choice), made on first use and kept for the life of the process, so that TLS sessions are resumed on
 * reconnect (the context's session cache is keyed by the backend's host and port). BoringSSL when it loads, the
 * JDK's TLS otherwise.
 *
 * <p>Trust: {@code upstream_tls.ca}, or else the operating system's CA bundle ({@code /etc/ssl/certs/...}, where
 * a locally added CA is), or else the JDK's own. The certificate's name is checked against {@code server_name} or
 * the backend's host (an IP address against the certificate's IP entries).
 */
final class BackendTls {
    private static final System.Logger LOG = System.getLogger(BackendTls.class.getName());
    /** Where Linux distributions keep the CA bundle (Debian/Ubuntu/Alpine, RHEL/Fedora, SUSE, others). */
    private static final List<Path> SYSTEM_BUNDLES = List.of(Path.of("/etc/ssl/certs/ca-certificates.crt"),
            Path.of("/etc/pki/tls/certs/ca-bundle.crt"), Path.of("/etc/ssl/ca-bundle.pem"),
            Path.of("/etc/ssl/cert.pem"));

    private record Key(UpstreamTls tls, boolean http1Only) {
    }

    private final Map<Key, SslContext> contexts = new ConcurrentHashMap<>();

    /**
     * A handler for a new connection to {@code address}. {@code http1Only}: offer only http/1.1 in ALPN (a
     * websocket upgrade to a backend that may choose h2). The handshake must end within {@code timeout}.
     */
    SslHandler newHandler(ByteBufAllocator alloc, UpstreamAddress address, boolean http1Only, Duration timeout)
            throws SSLException {
        UpstreamTls tls = address.tls();
        SslContext context = context(tls, http1Only || !tls.offersH2());
        String peer = tls.serverName() != null ? tls.serverName() : address.host();
        SslHandler handler = context.newHandler(alloc, peer, address.port());
        handler.setHandshakeTimeoutMillis(Math.max(1, timeout.toMillis()));
        return handler;
    }

    private SslContext context(UpstreamTls tls, boolean http1Only) throws SSLException {
        Key key = new Key(tls, http1Only);
        SslContext known = contexts.get(key);
        if (known != null) {
            return known;
        }
        SslContext made = build(tls, http1Only);
        SslContext raced = contexts.putIfAbsent(key, made);
        return raced == null ? made : raced;
    }

    private SslContext build(UpstreamTls tls, boolean http1Only) throws SSLException {
        List<String> protocols = http1Only ? List.of(UpstreamTls.HTTP_1_1) : tls.alpn();
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols));
        if (tls.insecureSkipVerify()) {
            builder.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
        } else {
            builder.endpointIdentificationAlgorithm("HTTPS");
            if (tls.caPem() != null) {
                builder.trustManager(stream(tls.caPem()));
            } else {
                byte[] bundle = readSystemBundle();
                if (bundle != null) {
                    builder.trustManager(new ByteArrayInputStream(bundle));
                }
            }
        }
        if (tls.clientCertificate()) {
            builder.keyManager(stream(tls.clientCertPem()), stream(tls.clientKeyPem()));
        }
        return builder.build();
    }

    private static InputStream stream(String pem) {
        return new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] readSystemBundle() {
        for (Path bundle : SYSTEM_BUNDLES) {
            try {
                if (Files.isReadable(bundle)) {
                    return Files.readAllBytes(bundle);
                }
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "cannot read {0}: {1}", bundle, e.getMessage());
            }
        }
        return null;
    }
}
