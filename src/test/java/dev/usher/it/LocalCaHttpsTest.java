package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.RawHttp;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTPS with certificates from Usher's local CA, checked with real clients: curl trusting only the local root,
 * curl over HTTP/2, nghttp, h2load; plain-HTTP requests redirected; the same certificate after a restart.
 */
class LocalCaHttpsTest {
    @TempDir
    static Path data;
    static Whoami backend;
    static Usher usher;
    static Path root;

    @TempDir
    static Path files;

    @BeforeAll
    static void start() throws Exception {
        selfSigned("files.example.com", "first");
        backend = Whoami.start("127.0.0.1", 0, "local-ca-backend");
        usher = startUsher();
        root = data.resolve("ca/root.pem");
    }

    private static Usher startUsher() throws Exception {
        int b = backend.port();
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                  127.0.0.1: 127.0.0.1:%d
                  "*.dev.localhost": 127.0.0.1:%d
                  http://plain.localhost: 127.0.0.1:%d
                  hsts.localhost: {to: 127.0.0.1:%d, security_headers: true}
                  files.example.com: {to: 127.0.0.1:%d, tls: {cert: %s, key: %s}}
                """.formatted(data, b, b, b, b, b, b, files.resolve("cert.pem"), files.resolve("key.pem"));
        return Usher.start(ConfigLoader.parse(yaml, "local.yaml"), 2, Retry.DEFAULT, Duration.ofSeconds(1));
    }

    @AfterAll
    static void stop() {
        usher.close();
        backend.close();
    }

    private static int httpsPort() {
        return usher.httpsAddress().getPort();
    }

    private static Command curl(String... args) {
        List<String> command = new java.util.ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        command.addAll(List.of(args));
        return Command.run(30, command);
    }

    @Test
    void curlTrustingOnlyTheLocalRootReachesTheBackendOverHttps() {
        int port = httpsPort();
        Command c = curl("-i", "--cacert", root.toString(), "--resolve", "app.localhost:" + port + ":127.0.0.1",
                "https://app.localhost:" + port + "/hello");
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("local-ca-backend").contains("GET /hello")
                .containsIgnoringCase("alt-svc: h3=\":" + port + "\"; ma=2592000")
                .containsIgnoringCase("X-Forwarded-Proto: https");
    }

    @Test
    void servesHttp2OverTlsToCurl() {
        int port = httpsPort();
        Command c = curl("--http2", "--cacert", root.toString(), "--resolve", "app.localhost:" + port + ":127.0.0.1",
                "-o", "/dev/null", "-w", "%{http_version} %{response_code}", "https://app.localhost:" + port + "/");
        assertThat(c.output()).isEqualTo("2 200");
    }

    @Test
    void anIpAddressSiteIsServedWithoutSni() {
        int port = httpsPort();
        Command c = curl("-i", "--cacert", root.toString(), "https://127.0.0.1:" + port + "/ip");
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("GET /ip")
                .as("no HTTP/3 offered: a QUIC handshake without SNI would fail").doesNotContainIgnoringCase("alt-svc");
    }

    @Test
    void aWildcardSiteGetsAWildcardCertificate() throws Exception {
        int port = httpsPort();
        Command c = curl("--cacert", root.toString(), "--resolve", "a.dev.localhost:" + port + ":127.0.0.1",
                "https://a.dev.localhost:" + port + "/w");
        assertThat(c.exitCode()).as(c.output()).isZero();
        X509Certificate leaf = TlsProbe.chain(port, "b.dev.localhost").get(0);
        assertThat(leaf.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))).toList())
                .containsExactly("*.dev.localhost");
    }

    @Test
    void unknownAndPlainHttpNamesGetNoCertificateAtAll() {
        int port = httpsPort();
        for (String name : List.of("unknown.localhost", "plain.localhost")) {
            Command c = curl("-k", "--resolve", name + ":" + port + ":127.0.0.1", "https://" + name + ":" + port
                    + "/");
            assertThat(c.exitCode()).as(name + ": " + c.output()).isNotZero();
            assertThat(c.output()).doesNotContain("local-ca-backend");
        }
    }

    @Test
    void plainHttpRequestsForAnHttpsSiteAreRedirected() throws Exception {
        long seen = backend.requestsSeen();
        try (RawHttp raw = new RawHttp(usher.httpAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /path?q=1 HTTP/1.1\r\nHost: app.localhost\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(308);
            assertThat(r.headers().get("location")).isEqualTo("https://app.localhost:" + httpsPort() + "/path?q=1");
        }
        assertThat(backend.requestsSeen()).as("redirected, not forwarded").isEqualTo(seen);
    }

    @Test
    void aPlainHttpSiteIsStillServedOverPlainHttp() throws Exception {
        try (RawHttp raw = new RawHttp(usher.httpAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /p HTTP/1.1\r\nHost: plain.localhost\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("local-ca-backend");
        }
    }

    @Test
    void securityHeadersSendHstsOverHttpsOnly() throws Exception {
        int port = httpsPort();
        Command c = curl("-D", "-", "-o", "/dev/null", "--cacert", root.toString(), "--resolve",
                "hsts.localhost:" + port + ":127.0.0.1", "https://hsts.localhost:" + port + "/");
        assertThat(c.output().toLowerCase(java.util.Locale.ROOT)).contains("strict-transport-security: max-age=");
        try (RawHttp raw = new RawHttp(usher.httpAddress().getPort())) {
            RawHttp.Response r = raw.send("GET / HTTP/1.1\r\nHost: hsts.localhost\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(308);
            assertThat(r.headers()).doesNotContainKey("strict-transport-security");
        }
    }

    @Test
    void nghttpSpeaksHttp2ThroughUsher() {
        Command c = Command.run(30, List.of("nghttp", "-nv", "https://127.0.0.1:" + httpsPort() + "/n"));
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains(":status: 200");
    }

    @Test
    void h2loadOfTwentyThousandRequestsHasNoErrors() {
        Command c = Command.run(120, List.of("h2load", "-n", "20000", "-c", "10", "-m", "10",
                "https://127.0.0.1:" + httpsPort() + "/"));
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("20000 succeeded, 0 failed, 0 errored").contains("status codes: 20000 2xx");
        System.out.println(c.output());
    }

    /** A self-signed certificate for {@code name} made by openssl, written as the site's cert and key files. */
    private static void selfSigned(String name, String organisation) {
        Path key = files.resolve("new-key.pem");
        Path cert = files.resolve("new-cert.pem");
        Command c = Command.run(30, List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
                "-subj", "/O=" + organisation + "/CN=" + name, "-addext", "subjectAltName=DNS:" + name));
        assertThat(c.exitCode()).as(c.output()).isZero();
        try {
            // key first, then the certificate, each replaced in one rename, as a careful user (or certbot) would
            Files.move(key, files.resolve("key.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            Files.move(cert, files.resolve("cert.pem"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void certificateFilesAreServedAndReplacedWhenTheyChange() throws Exception {
        int port = httpsPort();
        Command c = curl("--cacert", files.resolve("cert.pem").toString(), "--resolve",
                "files.example.com:" + port + ":127.0.0.1", "https://files.example.com:" + port + "/f");
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("GET /f");
        assertThat(TlsProbe.chain(port, "files.example.com").get(0).getSubjectX500Principal().getName())
                .contains("O=first");

        Thread.sleep(1100); // a new modification time, whatever the file system's resolution
        selfSigned("files.example.com", "second");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        String subject = "";
        while (System.nanoTime() < deadline && !subject.contains("O=second")) {
            Thread.sleep(100);
            subject = TlsProbe.chain(port, "files.example.com").get(0).getSubjectX500Principal().getName();
        }
        assertThat(subject).contains("O=second");

        Files.writeString(files.resolve("cert.pem"), "not a certificate");
        Thread.sleep(2500);
        assertThat(TlsProbe.chain(port, "files.example.com").get(0).getSubjectX500Principal().getName())
                .as("a broken replacement keeps the previous certificate in service").contains("O=second");
    }

    @Test
    void keysAreReadableByTheOwnerOnly() throws Exception {
        Path key = data.resolve("certificates/local/app.localhost/key.pem");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("ca/root.key"))))
                .isEqualTo("rw-------");
    }

    @Test
    void closingUsherSendsGoawayToHttp2Clients() throws Exception {
        Usher other = startUsherOnEphemeralPorts();
        try (RawH2Client client = new RawH2Client(other.httpsAddress().getPort())) {
            client.await(RawH2Client.SETTINGS);
            Thread.ofVirtual().start(other::close);
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isZero();
        }
    }

    @Test
    void aGracefulShutdownSendsGoawayAndLetsTheOpenStreamFinish() throws Exception {
        Usher other = startUsherOnEphemeralPorts();
        try (RawH2Client client = new RawH2Client(other.httpsAddress().getPort())) {
            client.await(RawH2Client.SETTINGS);
            client.headers(1, new io.netty.handler.codec.http2.DefaultHttp2Headers().method("GET").scheme("https")
                    .authority("127.0.0.1").path("/?wait=1s"), true);
            Thread.sleep(300);
            long start = System.nanoTime();
            Thread stopping = Thread.ofVirtual().start(() -> other.shutdown(Duration.ofSeconds(10)));
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isZero();
            RawH2Client.Frame answer = client.await(RawH2Client.HEADERS);
            assertThat(answer.stream()).isEqualTo(1);
            assertThat(client.decode(answer).status().toString()).isEqualTo("200");
            stopping.join(5000);
            assertThat(stopping.isAlive()).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        }
    }

    private static Usher startUsherOnEphemeralPorts() throws Exception {
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(data, backend.port());
        return Usher.start(ConfigLoader.parse(yaml, "goaway.yaml"), 1);
    }

    @Test
    void aRestartServesTheSameCertificateAndRoot() throws Exception {
        String before = TlsProbe.leafSha256(httpsPort(), "app.localhost");
        String rootBefore = Files.readString(root);
        usher.close();
        usher = startUsher();
        assertThat(TlsProbe.leafSha256(httpsPort(), "app.localhost")).isEqualTo(before);
        assertThat(Files.readString(root)).isEqualTo(rootBefore);
    }
}
