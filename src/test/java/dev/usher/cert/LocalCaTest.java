package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalCaTest {
    @TempDir
    Path data;

    @Test
    void rootIsCreatedOnceAndReusedOnReopen() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(data));
        LocalCa again = LocalCa.open(new CertStore(data));

        X509Certificate root = ca.root();
        assertThat(again.root()).isEqualTo(root);
        assertThat(ca.id()).isEqualTo("local");
        assertThat(ca.rootCertificate()).isEqualTo(data.resolve("ca/root.pem"));
        assertThat(root.getSubjectX500Principal().getName()).matches("CN=Usher Local CA [0-9a-f]{8},O=Usher");
        assertThat(root.getBasicConstraints()).isZero();
        assertThat(root.getCriticalExtensionOIDs()).contains("2.5.29.19", "2.5.29.15");
        assertThat(root.getKeyUsage()[5]).isTrue(); // keyCertSign
        assertThat(root.getNotAfter().toInstant()).isAfter(Instant.now().plus(Duration.ofDays(3600)));
        assertThat(root.getNotBefore().toInstant()).isBefore(Instant.now().minus(Duration.ofMinutes(59)));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("ca/root.key"))))
                .isEqualTo("rw-------");
        root.verify(root.getPublicKey());
    }

    @Test
    void twoInstallsHaveDifferentRoots(@TempDir Path other) throws Exception {
        assertThat(LocalCa.open(new CertStore(other)).root().getSubjectX500Principal())
                .isNotEqualTo(LocalCa.open(new CertStore(data)).root().getSubjectX500Principal());
    }

    @Test
    void leafChainsToTheRootWithTheRightNames() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(data));
        assertSan(ca, "app.localhost", 2, "app.localhost");
        assertSan(ca, "*.app.test", 2, "*.app.test");
        assertSan(ca, "127.0.0.1", 7, "127.0.0.1");
        assertSan(ca, "::1", 7, "0:0:0:0:0:0:0:1");
    }

    @Test
    void leafIsAShortLivedServerCertificate() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(data));
        CertifiedKey cert = ca.issue("App.Test");
        X509Certificate leaf = cert.leaf();

        assertThat(cert.chain()).containsExactly(leaf, ca.root());
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=app.test");
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(leaf.getKeyUsage()[0]).isTrue(); // digitalSignature
        assertThat(leaf.getSerialNumber().signum()).isPositive();
        assertThat(leaf.getSerialNumber().bitLength()).isGreaterThan(64);
        assertThat(leaf.getExtensionValue("2.5.29.35")).isNotNull(); // authority key id
        assertThat(leaf.getExtensionValue("2.5.29.14")).isNotNull(); // subject key id
        assertThat(cert.lifetime()).isEqualTo(Duration.ofDays(7).plusHours(1));
        assertThat(ca.issue("app.test").leaf().getSerialNumber()).isNotEqualTo(leaf.getSerialNumber());
        assertThat(ca.issue("app.test").key()).isNotEqualTo(cert.key());
    }

    @Test
    void jdkClientTrustingOnlyTheRootCompletesAHandshakeWithHostnameChecks() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(data));
        assertThat(handshake(ca, ca.issue("app.localhost"), "app.localhost")).isTrue();
        assertThat(handshake(ca, ca.issue("*.app.test"), "x.app.test")).isTrue();
        assertThat(handshake(ca, ca.issue("127.0.0.1"), null)).isTrue();
        assertThat(handshake(ca, ca.issue("other.localhost"), "app.localhost")).isFalse();
        assertThat(handshake(ca, ca.issue("127.0.0.2"), null)).isFalse();
    }

    @Test
    void damagedRootIsReplacedAndKeptAside() throws Exception {
        X509Certificate first = LocalCa.open(new CertStore(data)).root();
        Files.writeString(data.resolve("ca/root.pem"), "-----BEGIN CERTIFICATE-----\nMIIB");

        LocalCa replaced = LocalCa.open(new CertStore(data));
        assertThat(replaced.root()).isNotEqualTo(first);
        try (var files = Files.list(data.resolve("ca"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .anyMatch(n -> n.startsWith("root.pem.damaged-"))
                    .anyMatch(n -> n.startsWith("root.key.damaged-"));
        }
        assertThat(LocalCa.open(new CertStore(data)).root()).isEqualTo(replaced.root());
    }

    @Test
    void rootKeyOfAnotherRootCountsAsDamage(@TempDir Path other) throws Exception {
        X509Certificate first = LocalCa.open(new CertStore(data)).root();
        LocalCa.open(new CertStore(other));
        Files.copy(other.resolve("ca/root.key"), data.resolve("ca/root.key"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        assertThat(LocalCa.open(new CertStore(data)).root()).isNotEqualTo(first);
    }

    private static void assertSan(LocalCa ca, String name, int type, String value) throws Exception {
        X509Certificate leaf = ca.issue(name).leaf();
        leaf.verify(ca.root().getPublicKey());
        assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.root().getSubjectX500Principal());
        assertThat(leaf.getSubjectAlternativeNames()).containsExactly(List.of(type, value));
    }

    /** True when a client trusting only the root, checking host names, completes a handshake with the server. */
    private static boolean handshake(LocalCa ca, CertifiedKey cert, String sni) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("leaf", cert.key(), new char[0], cert.chain().toArray(new X509Certificate[0]));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
        SSLContext server = SSLContext.getInstance("TLS");
        server.init(kmf.getKeyManagers(), null, null);

        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("root", ca.root());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);

        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0, 1,
                loopback)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> {
                try (SSLSocket s = (SSLSocket) listener.accept()) {
                    s.setSoTimeout(10_000);
                    s.startHandshake();
                    s.getOutputStream().write(1);
                    s.getOutputStream().flush();
                } catch (Exception e) {
                    // the client's verdict is what the test checks
                }
            });
            // layered over a plain socket so the peer host (what HTTPS endpoint identification checks) is the name
            String host = sni == null ? "127.0.0.1" : sni;
            java.net.Socket plain = new java.net.Socket(loopback, listener.getLocalPort());
            try (SSLSocket s = (SSLSocket) client.getSocketFactory().createSocket(plain, host, plain.getPort(), true)) {
                s.setSoTimeout(10_000);
                SSLParameters params = s.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                if (sni != null) {
                    params.setServerNames(List.of(new SNIHostName(sni)));
                }
                s.setSSLParameters(params);
                return handshakeWith(s);
            } finally {
                accepted.get(10, TimeUnit.SECONDS);
            }
        }
    }

    private static boolean handshakeWith(SSLSocket s) {
        try {
            s.startHandshake();
            return s.getInputStream().read() == 1;
        } catch (Exception e) {
            return false;
        }
    }
}
