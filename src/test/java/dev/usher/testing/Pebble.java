package dev.usher.testing;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A real Pebble (Let's Encrypt's test CA) for tests, with a {@code pebble-challtestsrv} beside it as its DNS server,
 * resolving every name to 127.0.0.1, or a DNS server of the test's ({@link Builder#dnsServer}: BIND for DNS-01).
 * Both run as subprocesses on loopback and are stopped by {@link #close()}.
 *
 * <p>Pebble validates HTTP-01 at {@code 127.0.0.1:httpValidationPort} and TLS-ALPN-01 at
 * {@code 127.0.0.1:tlsValidationPort}: point them at the server under test. Its own HTTPS listener uses a certificate
 * from a small CA made here; give {@link #trustPem()} to the ACME client ({@code AcmeSettings.trust}).
 *
 * <p>Pebble 2.4 (Debian) facts this fixture relies on: {@code certificateValidityPeriod} (seconds) in the config sets
 * the lifetime of issued certificates; the directory has no {@code renewalInfo} (no ARI); stdout logs "Added order"
 * once per new-order request; the issuing root is regenerated at each start and served at management
 * {@code /roots/0}.
 *
 * <p>Missing binaries fail the test (never skip it): {@code apt-get install pebble}.
 */
public final class Pebble implements AutoCloseable {
    private static final Path PEBBLE = Path.of("/usr/bin/pebble");
    private static final Path CHALLTESTSRV = Path.of("/usr/bin/pebble-challtestsrv");
    private static final Duration STARTUP = Duration.ofSeconds(15);

    private final Path dir;
    private final int acmePort;
    private final int managementPort;
    private final Path trustPem;
    private final Path log;
    private final HttpClient client;
    private Process pebble;
    private Process challtestsrv;

    private Pebble(Path dir, int acmePort, int managementPort, Path trustPem, SSLContext trust) {
        this.dir = dir;
        this.acmePort = acmePort;
        this.managementPort = managementPort;
        this.trustPem = trustPem;
        this.log = dir.resolve("pebble.log");
        this.client = HttpClient.newBuilder().sslContext(trust).connectTimeout(Duration.ofSeconds(2)).build();
    }

    /** Pebble on ephemeral ports, validating challenges at the given loopback ports. */
    public static Pebble start(int httpValidationPort, int tlsValidationPort) {
        return builder().httpValidationPort(httpValidationPort).tlsValidationPort(tlsValidationPort).start();
    }

    /** Pebble with its ACME listener on {@code acmePort} (e.g. one a client was configured with before it ran). */
    public static Pebble startOn(int acmePort, int httpValidationPort, int tlsValidationPort) {
        return builder().acmePort(acmePort).httpValidationPort(httpValidationPort)
                .tlsValidationPort(tlsValidationPort).start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options beyond the ports; every one has a default suited to fast tests. */
    public static final class Builder {
        private int acmePort;
        private int httpValidationPort = 5002;
        private int tlsValidationPort = 5001;
        private Duration certificateValidity;
        private int authzReusePercent;
        private Path tlsFiles;
        private String dnsServer;

        public Builder acmePort(int port) {
            this.acmePort = port;
            return this;
        }

        public Builder httpValidationPort(int port) {
            this.httpValidationPort = port;
            return this;
        }

        public Builder tlsValidationPort(int port) {
            this.tlsValidationPort = port;
            return this;
        }

        /** Lifetime of issued certificates (Pebble's default: 5 years). Short ones make renewal testable. */
        public Builder certificateValidity(Duration validity) {
            this.certificateValidity = validity;
            return this;
        }

        /** How often Pebble reuses a valid authorization for a new order (default 0 here: always validate). */
        public Builder authzReusePercent(int percent) {
            this.authzReusePercent = percent;
            return this;
        }

        /**
         * Serve Pebble's own HTTPS with the files {@link #writeTlsFiles} made, so that a client configured with
         * their {@code ca.pem} before this Pebble existed trusts it.
         */
        public Builder tlsFiles(Path dir) {
            this.tlsFiles = dir;
            return this;
        }

        /**
         * Resolve through {@code hostAndPort} (e.g. a {@link Bind} server, {@code 127.0.0.1:PORT} or
         * {@code [::1]:PORT}) instead of a pebble-challtestsrv: DNS-01 is then validated against that server's
         * records, and no challtestsrv is started.
         */
        public Builder dnsServer(String hostAndPort) {
            this.dnsServer = hostAndPort;
            return this;
        }

        public Pebble start() {
            requireInstalled(PEBBLE);
            if (dnsServer == null) {
                requireInstalled(CHALLTESTSRV);
            }
            Pebble p = null;
            try {
                Path dir = Files.createTempDirectory("pebble");
                TestCa ca = tlsFiles == null ? TestCa.write(dir) : TestCa.copy(tlsFiles, dir);
                int acme = acmePort == 0 ? freePort() : acmePort;
                p = new Pebble(dir, acme, freePort(), ca.caPem(), ca.sslContext());
                p.launch(this);
                return p;
            } catch (IOException | GeneralSecurityException e) {
                if (p != null) {
                    p.close();
                }
                throw new IllegalStateException("cannot start Pebble: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                if (p != null) {
                    p.close();
                }
                throw e;
            }
        }
    }

    private void launch(Builder options) throws IOException {
        String dnsServer = options.dnsServer;
        int challtestsrvManagement = freePort();
        if (dnsServer == null) {
            int dnsPort = freePort();
            dnsServer = "127.0.0.1:" + dnsPort;
            challtestsrv = new ProcessBuilder(CHALLTESTSRV.toString(), "-defaultIPv4", "127.0.0.1", "-defaultIPv6",
                    "", "-dns01", dnsServer, "-http01", "", "-https01", "", "-tlsalpn01", "",
                    "-management", "127.0.0.1:" + challtestsrvManagement)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("challtestsrv.log").toFile()).start();
        }

        StringBuilder config = new StringBuilder();
        config.append("{\"pebble\": {")
                .append("\"listenAddress\": \"127.0.0.1:").append(acmePort).append("\", ")
                .append("\"managementListenAddress\": \"127.0.0.1:").append(managementPort).append("\", ")
                .append("\"certificate\": \"").append(dir.resolve("localhost.pem")).append("\", ")
                .append("\"privateKey\": \"").append(dir.resolve("localhost.key")).append("\", ")
                .append("\"httpPort\": ").append(options.httpValidationPort).append(", ")
                .append("\"tlsPort\": ").append(options.tlsValidationPort).append(", ")
                .append("\"ocspResponderURL\": \"\", \"externalAccountBindingRequired\": false");
        if (options.certificateValidity != null) {
            config.append(", \"certificateValidityPeriod\": ").append(options.certificateValidity.toSeconds());
        }
        config.append("}}\n");
        Path configFile = dir.resolve("pebble-config.json");
        Files.writeString(configFile, config);

        ProcessBuilder builder = new ProcessBuilder(PEBBLE.toString(), "-config", configFile.toString(),
                "-dnsserver", dnsServer, "-strict=false")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("PEBBLE_VA_NOSLEEP", "1");
        env.put("PEBBLE_WFE_NONCEREJECT", "0");
        env.put("PEBBLE_AUTHZREUSE", Integer.toString(options.authzReusePercent));
        if (challtestsrv != null) {
            awaitPort(challtestsrv, challtestsrvManagement, "pebble-challtestsrv");
        }
        pebble = builder.start();
        awaitDirectory();
    }

    private static void requireInstalled(Path binary) {
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException(binary + " is missing: these tests need a real ACME CA; "
                    + "run `apt-get install pebble` (Debian/Ubuntu) and run them again");
        }
    }

    private void awaitPort(Process process, int port, String what) throws IOException {
        Instant deadline = Instant.now().plus(STARTUP);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IOException(what + " exited with " + process.exitValue());
            }
            try {
                new java.net.Socket("127.0.0.1", port).close();
                return;
            } catch (IOException notYet) {
                sleep(20);
            }
        }
        throw new IOException(what + " did not listen on " + port + " within " + STARTUP);
    }

    private void awaitDirectory() throws IOException {
        Instant deadline = Instant.now().plus(STARTUP);
        HttpRequest request = HttpRequest.newBuilder(directory()).timeout(Duration.ofSeconds(2)).build();
        while (Instant.now().isBefore(deadline)) {
            if (!pebble.isAlive()) {
                throw new IOException("pebble exited with " + pebble.exitValue() + ":\n" + log());
            }
            try {
                if (client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            sleep(30);
        }
        throw new IOException("Pebble's directory did not answer within " + STARTUP + ":\n" + log());
    }

    /** The ACME directory URL, {@code https://localhost:PORT/dir}. */
    public URI directory() {
        return URI.create("https://localhost:" + acmePort + "/dir");
    }

    public int acmePort() {
        return acmePort;
    }

    /** PEM of the CA that signed Pebble's own HTTPS certificate (for the ACME client's trust). */
    public Path trustPem() {
        return trustPem;
    }

    /** Pebble's issuing root(s), fetched from its management interface; chains it issues end below them. */
    public List<X509Certificate> issuingRoots() {
        try {
            HttpRequest request = HttpRequest.newBuilder(
                    URI.create("https://localhost:" + managementPort + "/roots/0")).build();
            byte[] pem = client.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
            List<X509Certificate> roots = new ArrayList<>();
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))) {
                roots.add((X509Certificate) c);
            }
            return roots;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@link #issuingRoots()} as a PEM file (for {@code curl --cacert}); returns it. */
    public Path writeIssuingRoots(Path file) throws IOException {
        StringBuilder pem = new StringBuilder();
        for (X509Certificate root : issuingRoots()) {
            pem.append("-----BEGIN CERTIFICATE-----\n")
                    .append(java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(encoded(root)))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        return Files.writeString(file, pem);
    }

    private static byte[] encoded(X509Certificate certificate) {
        try {
            return certificate.getEncoded();
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** New-order requests Pebble has accepted so far (its log prints "Added order" once for each). */
    public int orderCount() {
        return (int) log().lines().filter(line -> line.contains("Added order")).count();
    }

    /** Pebble's output so far. */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** Kills both processes (by their own handles) and removes the temporary directory. Idempotent. */
    public void stop() {
        destroy(pebble);
        destroy(challtestsrv);
        pebble = null;
        challtestsrv = null;
        client.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static void destroy(Process process) {
        if (process == null) {
            return;
        }
        // SIGKILL: both wait 2 s on SIGTERM for a graceful shutdown, and a test CA has nothing to save
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ports this JVM handed out already: two asked for one after the other must differ even before either is bound. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A free TCP port on 127.0.0.1 (free when asked: fine for loopback tests), never one handed out before. */
    public static int freePort() {
        for (int attempt = 0; ; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                int port = socket.getLocalPort();
                if (HANDED_OUT.add(port) || attempt > 20) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes a CA ({@code ca.pem}) and a {@code localhost} certificate for Pebble's HTTPS into {@code dir}, for
     * {@link Builder#tlsFiles}; returns the CA file to trust.
     */
    /**
     * A Pebble to start later, once the clients that name it are up: its ACME port and TLS files are fixed now, so a
     * config can name {@link Later#directory()} and {@link Later#trust()} before it runs.
     */
    public record Later(int port, Path tlsFiles, Path trust, java.net.URI directory) {
        /** Picks a free port and writes the TLS files into {@code dir/pebble-tls}. */
        public static Later in(Path dir) throws IOException {
            int port = freePort();
            Path tls = java.nio.file.Files.createDirectories(dir.resolve("pebble-tls"));
            return new Later(port, tls, writeTlsFiles(tls), java.net.URI.create("https://localhost:" + port + "/dir"));
        }

        /** A builder for this Pebble: its port and TLS files set; validation ports and the rest to add. */
        public Builder builder() {
            return Pebble.builder().acmePort(port).tlsFiles(tlsFiles);
        }
    }

    public static Path writeTlsFiles(Path dir) {
        try {
            return TestCa.write(dir).caPem();
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A throwaway CA and a {@code localhost} certificate from it for Pebble's HTTPS listeners. */
    private record TestCa(Path caPem, SSLContext sslContext) {
        static TestCa copy(Path from, Path dir) throws IOException, GeneralSecurityException {
            for (String file : List.of("ca.pem", "localhost.pem", "localhost.key")) {
                Files.copy(from.resolve(file), dir.resolve(file));
            }
            X509Certificate ca;
            try (var in = Files.newInputStream(dir.resolve("ca.pem"))) {
                ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            }
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            store.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return new TestCa(dir.resolve("ca.pem"), context);
        }

        static TestCa write(Path dir) throws IOException, GeneralSecurityException {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            KeyPair caKey = generator.generateKeyPair();
            KeyPair leafKey = generator.generateKeyPair();
            Instant now = Instant.now();
            X500Name caName = new X500Name("CN=Usher test CA for Pebble");
            try {
                var caBuilder = new JcaX509v3CertificateBuilder(caName, BigInteger.ONE,
                        Date.from(now.minusSeconds(3600)), Date.from(now.plus(Duration.ofDays(2))), caName,
                        caKey.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                        .addExtension(Extension.keyUsage, true,
                                new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
                var signer = new JcaContentSignerBuilder("SHA256withECDSA").build(caKey.getPrivate());
                X509Certificate ca = new JcaX509CertificateConverter().getCertificate(caBuilder.build(signer));
                var leafBuilder = new JcaX509v3CertificateBuilder(caName, BigInteger.TWO,
                        Date.from(now.minusSeconds(3600)), Date.from(now.plus(Duration.ofDays(2))),
                        new X500Name("CN=localhost"), leafKey.getPublic())
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                        .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                                new GeneralName(GeneralName.dNSName, "localhost"),
                                new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
                X509Certificate leaf = new JcaX509CertificateConverter().getCertificate(leafBuilder.build(signer));
                Path caPem = dir.resolve("ca.pem");
                writePem(caPem, ca);
                writePem(dir.resolve("localhost.pem"), leaf, ca);
                // PKCS#8 as the JDK encodes it (named curve): Go's TLS stack reads it, unlike BC's "EC PRIVATE KEY"
                Files.writeString(dir.resolve("localhost.key"), "-----BEGIN PRIVATE KEY-----\n"
                        + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
                        .encodeToString(leafKey.getPrivate().getEncoded())
                        + "\n-----END PRIVATE KEY-----\n");

                KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
                store.load(null, null);
                store.setCertificateEntry("ca", ca);
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(store);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, tmf.getTrustManagers(), null);
                return new TestCa(caPem, context);
            } catch (org.bouncycastle.operator.OperatorCreationException e) {
                throw new GeneralSecurityException(e);
            }
        }

        private static void writePem(Path file, Object... objects) throws IOException {
            try (Writer out = Files.newBufferedWriter(file); JcaPEMWriter pem = new JcaPEMWriter(out)) {
                for (Object o : objects) {
                    pem.writeObject(o);
                }
            }
        }
    }
}
