package dev.usher.cert;

import org.shredzone.acme4j.connector.NetworkSettings;
import org.shredzone.acme4j.provider.GenericAcmeProvider;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.Collection;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The acme4j provider for every {@code https://} directory: acme4j's generic provider, with one {@link HttpClient}
 * shared by all sessions of an issuer, which trusts the roots from {@code acme.trust} when set (a private CA, Pebble)
 * and the JDK's trust store otherwise.
 *
 * <p>Why a provider: acme4j 4 builds its {@code java.net.http.HttpClient} in {@code AcmeProvider.createHttpClient},
 * and that is the only place an {@link SSLContext} can be given to it without touching the JVM-wide default. Sharing
 * one client keeps one connection pool and one selector thread per issuer instead of one per issue() call.
 * Thread-safe: the client is created once, under the provider's lock.
 */
final class AcmeConnections extends GenericAcmeProvider {
    /** Connect and read timeout for each request to the CA. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final SSLContext sslContext;
    private HttpClient client;

    private AcmeConnections(SSLContext sslContext) {
        this.sslContext = sslContext;
    }

    /** A provider trusting the PEM roots in {@code trust}, or the JDK's trust store when it is null. */
    static AcmeConnections trusting(Path trust) throws IOException {
        return new AcmeConnections(trust == null ? null : sslContext(trust));
    }

    @Override
    public boolean accepts(URI serverUri) {
        return "https".equals(serverUri.getScheme()) || "http".equals(serverUri.getScheme());
    }

    @Override
    public synchronized HttpClient createHttpClient(NetworkSettings settings) {
        if (client == null) {
            HttpClient.Builder builder = HttpClient.newBuilder()
                    .followRedirects(HttpClient.Redirect.NORMAL)
                    .connectTimeout(settings.getTimeout())
                    .proxy(settings.getProxySelector());
            if (settings.getAuthenticator() != null) {
                builder.authenticator(settings.getAuthenticator());
            }
            if (sslContext != null) {
                builder.sslContext(sslContext);
            }
            client = builder.build();
        }
        return client;
    }

    /** An SSL context whose only trust anchors are the certificates in the PEM file {@code trust}. */
    static SSLContext sslContext(Path trust) throws IOException {
        try (InputStream in = Files.newInputStream(trust)) {
            Collection<? extends Certificate> roots = CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (roots.isEmpty()) {
                throw new IOException(trust + " holds no PEM certificate");
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int i = 0;
            for (Certificate root : roots) {
                store.setCertificateEntry("root-" + i++, root);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot read the CA roots in " + trust + ": " + e.getMessage(), e);
        }
    }
}
