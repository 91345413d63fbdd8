package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Retry;
import dev.usher.cli.CliAccess;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Pebble;
import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Certificates from a real ACME CA (Pebble), validated over HTTP-01 and TLS-ALPN-01 through Usher's own listeners;
 * kept on disk and served again after a restart without a new order; a damaged file replaced; {@code usher renew}.
 */
class AcmeHttpsTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path work;
    static Pebble pebble;
    static int httpPort;
    static int httpsPort;
    static Whoami backend;
    static Path pebbleRoots;

    @BeforeAll
    static void start() throws Exception {
        httpPort = Pebble.freePort();
        httpsPort = Pebble.freePort();
        pebble = servers.track(Pebble.start(httpPort, httpsPort));
        backend = servers.backend("acme-backend");
        pebbleRoots = pebble.writeIssuingRoots(work.resolve("pebble-roots.pem"));
    }

    static String config(Path data, String challenge, String admin, String... names) {
        StringBuilder yaml = new StringBuilder("""
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                admin: %s
                data: %s
                email: ops@example.com
                acme: {ca: "%s", trust: "%s", challenge: %s}
                sites:
                """.formatted(httpPort, httpsPort, admin, data, pebble.directory(), pebble.trustPem(), challenge));
        for (String name : names) {
            yaml.append("  ").append(name).append(": 127.0.0.1:").append(backend.port()).append('\n');
        }
        return yaml.toString();
    }

    static Usher start(String yaml) throws Exception {
        return Usher.start(ConfigLoader.parse(yaml, "acme.yaml"), 2,
                new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1));
    }

    static CertifiedKey awaitCertificate(Usher usher, String name, String notSha256) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            CertifiedKey cert = usher.certificates().certificateFor(name);
            if (cert != null && !cert.sha256().equals(notSha256)) {
                return cert;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no certificate for " + name + " within 60 s; Pebble says:\n" + pebble.log());
    }

    static Command curl(String name, String path) {
        return Command.run(30, List.of("curl", "-sS", "--max-time", "20", "--cacert", pebbleRoots.toString(),
                "--resolve", name + ":" + httpsPort + ":127.0.0.1", "https://" + name + ":" + httpsPort + path));
    }

    @Test
    void issuesOverHttp01AndServesTheSameCertificateAfterARestartWithoutANewOrder() throws Exception {
        Path data = work.resolve("http01");
        String yaml = config(data, "http-01", "off", "app.example.com");
        int ordersBefore = pebble.orderCount();
        String sha256;
        try (Usher usher = start(yaml)) {
            CertifiedKey cert = awaitCertificate(usher, "app.example.com", null);
            sha256 = cert.sha256();
            assertThat(pebble.orderCount()).isEqualTo(ordersBefore + 1);
            Command c = curl("app.example.com", "/first");
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(c.output()).contains("acme-backend").contains("GET /first");
            assertThat(TlsProbe.leafSha256(httpsPort, "app.example.com")).isEqualTo(sha256);
            try (RawHttp raw = new RawHttp(httpPort)) {
                RawHttp.Response r = raw.send("GET /x?y=1 HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(308);
                assertThat(r.headers().get("location"))
                        .isEqualTo("https://app.example.com:" + httpsPort + "/x?y=1");
            }
        }
        try (Usher usher = start(yaml)) {
            CertifiedKey cert = usher.certificates().certificateFor("app.example.com");
            assertThat(cert).as("served from disk as soon as start returns").isNotNull();
            assertThat(cert.sha256()).isEqualTo(sha256);
            assertThat(TlsProbe.leafSha256(httpsPort, "app.example.com")).isEqualTo(sha256);
            Command c = curl("app.example.com", "/again");
            assertThat(c.exitCode()).as(c.output()).isZero();
            Thread.sleep(1000);
            assertThat(pebble.orderCount()).as("no new order after the restart").isEqualTo(ordersBefore + 1);
            System.out.println("restart: same certificate sha256 " + sha256);
        }
    }

    @Test
    void issuesOverTlsAlpn01OnTheHttpsListener() throws Exception {
        Path data = work.resolve("alpn");
        // Only TLS-ALPN-01 is allowed, and the plain-HTTP listener is moved away from the port Pebble would use for
        // HTTP-01: the certificate can only have come through the HTTPS listener.
        String yaml = config(data, "tls-alpn-01", "off", "alpn.example.com")
                .replace("http: \"127.0.0.1:" + httpPort + "\"", "http: \"127.0.0.1:0\"");
        try (Usher usher = start(yaml)) {
            awaitCertificate(usher, "alpn.example.com", null);
            Command c = curl("alpn.example.com", "/alpn");
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(c.output()).contains("GET /alpn");
        }
    }

    @Test
    void aDamagedCertificateFileIsSetAsideAndReplaced() throws Exception {
        Path data = work.resolve("damaged");
        String yaml = config(data, "http-01", "off", "damaged.example.com");
        String first;
        try (Usher usher = start(yaml)) {
            first = awaitCertificate(usher, "damaged.example.com", null).sha256();
        }
        Path folder;
        try (Stream<Path> files = Files.walk(data.resolve("certificates"))) {
            folder = files.filter(p -> p.getFileName().toString().equals("cert.pem")).findFirst().orElseThrow()
                    .getParent();
        }
        Files.writeString(folder.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\ngarbage\n");
        int ordersBefore = pebble.orderCount();
        try (Usher usher = start(yaml)) {
            CertifiedKey fresh = awaitCertificate(usher, "damaged.example.com", first);
            assertThat(fresh.sha256()).isNotEqualTo(first);
            assertThat(pebble.orderCount()).isEqualTo(ordersBefore + 1);
            Command c = curl("damaged.example.com", "/ok");
            assertThat(c.exitCode()).as(c.output()).isZero();
        }
        try (Stream<Path> files = Files.list(folder)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("cert.pem.damaged-"));
        }
    }

    @Test
    void usherRenewOrdersANewCertificateThroughTheAdminEndpoint() throws Exception {
        Path data = work.resolve("renew");
        int adminPort = Pebble.freePort();
        Path file = Files.writeString(work.resolve("renew.yaml"),
                config(data, "http-01", "\"127.0.0.1:" + adminPort + "\"", "renew.example.com"));
        try (Usher usher = Usher.start(ConfigLoader.load(file), 2,
                new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1))) {
            String before = awaitCertificate(usher, "renew.example.com", null).sha256();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = CliAccess.run(List.of("renew", "renew.example.com", "--config", file.toString()), out, err);
            assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
            String after = usher.certificates().certificateFor("renew.example.com").sha256();
            assertThat(after).isNotEqualTo(before);
            assertThat(out.toString(StandardCharsets.UTF_8)).contains(after);
            assertThat(TlsProbe.leafSha256(httpsPort, "renew.example.com")).isEqualTo(after);
            int unknown = CliAccess.run(List.of("renew", "nope.example.com", "--config", file.toString()), out, err);
            assertThat(unknown).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("no HTTPS site named nope.example.com");
        }
    }
}
