package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Retry;
import dev.usher.cli.CliAccess;
import dev.usher.config.ConfigLoader;
import dev.usher.migrate.TestCerts;
import dev.usher.testing.Command;
import dev.usher.testing.Pebble;
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
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher import}, then Usher run on the file it wrote against a real ACME CA (Pebble): the imported
 * certificates are served at once with the same SHA-256 and Pebble sees no order for them, while an imported
 * certificate that is already due for renewal is renewed from Pebble by Usher's ACME issuer (one order, for that name
 * only), which shows they were stored where the ACME renewal looks for them.
 */
class ImportAcmeTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path work;
    static Pebble pebble;
    static int httpPort;
    static int httpsPort;
    static Whoami backend;

    @BeforeAll
    static void start() {
        httpPort = Pebble.freePort();
        httpsPort = Pebble.freePort();
        pebble = servers.track(Pebble.start(httpPort, httpsPort));
        backend = servers.backend("imported-backend");
    }

    /** A certificate valid for long enough that Usher keeps it, and one a third of whose life is left. */
    static TestCerts.Pair fresh(String name) {
        return TestCerts.make(Duration.ofDays(1), Duration.ofDays(80), name);
    }

    static TestCerts.Pair due(String name) {
        return TestCerts.make(Duration.ofDays(80), Duration.ofDays(10), name);
    }

    @Test
    void ssldocker() throws Exception {
        Path dir = Files.createDirectories(work.resolve("ssldocker"));
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCerts.Pair kept = fresh("kept.ssldocker.example.com");
        TestCerts.Pair renewed = due("due.ssldocker.example.com");
        Files.writeString(certs.resolve("kept.ssldocker.example.com"), kept.keyPem() + kept.certPem());
        Files.writeString(certs.resolve("due.ssldocker.example.com"), renewed.keyPem() + renewed.certPem());
        Path conf = Files.writeString(dir.resolve("conf.json"), """
                {"Email": "ops@example.com", "GzipOn": true, "Http2https": true, "Certs": "certs", "ProxyItems": [
                  {"Host": "kept.ssldocker.example.com", "Target": "http://%1$s"},
                  {"Host": "due.ssldocker.example.com", "Target": "http://%1$s"}]}
                """.formatted(Servers.address(backend)));
        importThenRun(List.of("ssldocker", conf.toString()), dir, kept, "kept.ssldocker.example.com", renewed,
                "due.ssldocker.example.com");
    }

    @Test
    void npm() throws Exception {
        Path dir = Files.createDirectories(work.resolve("npm"));
        TestCerts.Pair kept = fresh("kept.npm.example.com");
        TestCerts.Pair renewed = due("due.npm.example.com");
        try (dev.usher.migrate.NpmFixture npm = dev.usher.migrate.NpmFixture.create(dir.resolve("data"))) {
            for (String name : List.of("kept.npm.example.com", "due.npm.example.com")) {
                int cert = npm.insert("certificate", java.util.Map.of("provider", "letsencrypt", "domain_names",
                        dev.usher.migrate.NpmFixture.names(name), "expires_on", "2027-01-01 00:00:00"));
                npm.letsencrypt(dir.resolve("letsencrypt"), cert, name.startsWith("kept") ? kept : renewed);
                npm.insert("proxy_host", java.util.Map.of("domain_names", dev.usher.migrate.NpmFixture.names(name),
                        "forward_host", "127.0.0.1", "forward_port", backend.port(), "certificate_id", cert,
                        "ssl_forced", 1));
            }
        }
        importThenRun(List.of("npm", dir.resolve("data/database.sqlite").toString()), dir, kept,
                "kept.npm.example.com", renewed, "due.npm.example.com");
    }

    @Test
    void caddy() throws Exception {
        Path dir = Files.createDirectories(work.resolve("caddy"));
        TestCerts.Pair kept = fresh("kept.caddy.example.com");
        TestCerts.Pair renewed = due("due.caddy.example.com");
        Path storage = dir.resolve("caddy-data");
        dev.usher.migrate.CaddyImportTestAccess.caddyCert(storage, "acme-v02.api.letsencrypt.org-directory",
                "kept.caddy.example.com", kept);
        dev.usher.migrate.CaddyImportTestAccess.caddyCert(storage, "acme-v02.api.letsencrypt.org-directory",
                "due.caddy.example.com", renewed);
        Path caddyfile = Files.writeString(dir.resolve("Caddyfile"), """
                kept.caddy.example.com, due.caddy.example.com {
                	reverse_proxy %s
                }
                """.formatted(Servers.address(backend)));
        importThenRun(List.of("caddy", caddyfile.toString(), "--certs", storage.toString()), dir, kept,
                "kept.caddy.example.com", renewed, "due.caddy.example.com");
    }

    @Test
    void traefik() throws Exception {
        Path dir = Files.createDirectories(work.resolve("traefik"));
        TestCerts.Pair kept = fresh("kept.traefik.example.com");
        TestCerts.Pair renewed = due("due.traefik.example.com");
        java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
        Files.writeString(dir.resolve("acme.json"), """
                {"le": {"Account": {"Email": "ops@example.com"}, "Certificates": [
                  {"domain": {"main": "kept.traefik.example.com"}, "certificate": "%s", "key": "%s", "Store": "default"},
                  {"domain": {"main": "due.traefik.example.com"}, "certificate": "%s", "key": "%s", "Store": "default"}
                ]}}
                """.formatted(b64.encodeToString(kept.certPem().getBytes(StandardCharsets.US_ASCII)),
                b64.encodeToString(kept.keyPem().getBytes(StandardCharsets.US_ASCII)),
                b64.encodeToString(renewed.certPem().getBytes(StandardCharsets.US_ASCII)),
                b64.encodeToString(renewed.keyPem().getBytes(StandardCharsets.US_ASCII))));
        Path dynamic = Files.writeString(dir.resolve("dynamic.yml"), """
                http:
                  routers:
                    web:
                      rule: "Host(`kept.traefik.example.com`) || Host(`due.traefik.example.com`)"
                      entryPoints: [websecure]
                      service: app
                      tls: {certResolver: le}
                  services:
                    app:
                      loadBalancer:
                        servers:
                          - url: "http://%s"
                """.formatted(Servers.address(backend)));
        importThenRun(List.of("traefik", dynamic.toString()), dir, kept, "kept.traefik.example.com", renewed,
                "due.traefik.example.com");
    }

    /**
     * Imports with {@code args}, checks the file, runs Usher on it (on the test's ports), and checks what it serves
     * and what Pebble was asked.
     */
    static void importThenRun(List<String> args, Path dir, TestCerts.Pair kept, String keptName,
                              TestCerts.Pair renewed, String renewedName) throws Exception {
        Path out = dir.resolve("usher.yaml");
        Path data = dir.resolve("data");
        List<String> command = new ArrayList<>(List.of("import"));
        command.addAll(args);
        command.addAll(List.of("-o", out.toString(), "--data", data.toString(), "--ca", pebble.directory().toString(),
                "--ca-trust", pebble.trustPem().toString()));
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code = CliAccess.run(command, stdout, stderr);
        String said = stdout.toString(StandardCharsets.UTF_8) + stderr.toString(StandardCharsets.UTF_8);
        assertThat(code).as(said).isZero();
        assertThat(said).contains("certificate(s) stored in " + data);
        int check = CliAccess.run(List.of("check", "--config", out.toString()), stdout, stderr);
        assertThat(check).as(stderr.toString(StandardCharsets.UTF_8)).isZero();

        String yaml = "listen: {http: \"127.0.0.1:" + httpPort + "\", https: \"127.0.0.1:" + httpsPort + "\"}\n"
                + "admin: off\nhttp3: false\n" + Files.readString(out);
        int ordersBefore = pebble.orderCount();
        try (Usher usher = Usher.start(ConfigLoader.parse(yaml.getBytes(StandardCharsets.UTF_8), out), 2,
                new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1))) {
            CertifiedKey served = usher.certificates().certificateFor(keptName);
            assertThat(served).as("served from the data directory as soon as start returns").isNotNull();
            assertThat(served.sha256()).isEqualTo(kept.sha256());
            assertThat(TlsProbe.leafSha256(httpsPort, keptName)).isEqualTo(kept.sha256());
            Command c = Command.run(30, List.of("curl", "-sSk", "--max-time", "20", "--resolve",
                    keptName + ":" + httpsPort + ":127.0.0.1", "https://" + keptName + ":" + httpsPort + "/hello"));
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(c.output()).contains("imported-backend").contains("GET /hello");

            CertifiedKey renewal = awaitOther(usher, renewedName, renewed.sha256());
            assertThat(renewal.chain().get(renewal.chain().size() - 1).getIssuerX500Principal().getName())
                    .as("renewed by Pebble").contains("Pebble");
            Thread.sleep(1500);
            assertThat(pebble.orderCount()).as("one order, for the name that was due; none for " + keptName)
                    .isEqualTo(ordersBefore + 1);
            assertThat(TlsProbe.leafSha256(httpsPort, keptName)).isEqualTo(kept.sha256());
        }
    }

    static CertifiedKey awaitOther(Usher usher, String name, String notSha256) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            CertifiedKey cert = usher.certificates().certificateFor(name);
            if (cert != null && !cert.sha256().equals(notSha256)) {
                return cert;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no renewed certificate for " + name + " within 60 s; Pebble says:\n"
                + pebble.log());
    }
}
