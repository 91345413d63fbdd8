package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Pebble;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renewal with short-lived certificates (Pebble issuing 15-second ones): renewed when a third of the lifetime is
 * left, swapped in while a long download over the old certificate keeps going; and a CA that is down when Usher
 * starts: retried with backoff until it comes up.
 */
class AcmeRenewalTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    private static final Duration LIFETIME = Duration.ofSeconds(15);

    @TempDir
    static Path work;
    static Whoami backend;

    @BeforeAll
    static void start() {
        backend = servers.backend("renewal-backend");
    }

    private static String config(int http, int https, Path data, URI directory, Path trust, String name) {
        return """
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                admin: off
                data: %s
                acme: {ca: "%s", trust: "%s"}
                sites:
                  %s: 127.0.0.1:%d
                """.formatted(http, https, data, directory, trust, name, backend.port());
    }

    private static Usher start(String yaml) throws Exception {
        return Usher.start(ConfigLoader.parse(yaml, "renewal.yaml"), 2,
                new Retry(Duration.ofMillis(200), Duration.ofSeconds(1)), Duration.ofSeconds(1));
    }

    private static CertifiedKey await(Usher usher, String name, String notSha256, Duration limit)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            CertifiedKey cert = usher.certificates().certificateFor(name);
            if (cert != null && !cert.sha256().equals(notSha256)) {
                return cert;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no (new) certificate for " + name + " within " + limit);
    }

    @Test
    void renewsWhenAThirdOfTheLifetimeIsLeftAndSwapsLiveUnderADownload() throws Exception {
        int http = Pebble.freePort();
        int https = Pebble.freePort();
        try (Pebble pebble = Pebble.builder().httpValidationPort(http).tlsValidationPort(https)
                .certificateValidity(LIFETIME).start();
             Usher usher = start(config(http, https, work.resolve("renew"), pebble.directory(), pebble.trustPem(),
                     "short.example.com"))) {
            CertifiedKey issued = await(usher, "short.example.com", null, Duration.ofSeconds(30));
            assertThat(issued.lifetime()).isLessThanOrEqualTo(LIFETIME);
            // A forced renewal first (usher renew): it must replace the schedule, not start a second one beside it.
            CertifiedKey first = usher.certificates().renew("short.example.com").get();
            assertThat(first.sha256()).isNotEqualTo(issued.sha256());
            assertThat(pebble.orderCount()).isEqualTo(2);

            // A download paced by the client: 4 MiB at 256 KiB/s takes ~16 s, longer than the wait for renewal.
            CompletableFuture<Command> download = CompletableFuture.supplyAsync(() -> Command.run(90, List.of(
                    "curl", "-sS", "-k", "--limit-rate", "256k", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                    "--resolve", "short.example.com:" + https + ":127.0.0.1",
                    "https://short.example.com:" + https + "/data?size=4194304")));
            Thread.sleep(500);

            CertifiedKey renewed = await(usher, "short.example.com", first.sha256(), LIFETIME);
            long renewedAt = System.currentTimeMillis();
            assertThat(renewedAt).as("renewed after two thirds of the lifetime, not before")
                    .isGreaterThanOrEqualTo(first.renewalDue().toEpochMilli() - 1000);
            assertThat(TlsProbe.leafSha256(https, "short.example.com")).isEqualTo(renewed.sha256());
            assertThat(download).as("the download over the old certificate is still running").isNotDone();
            Thread.sleep(2000);
            assertThat(pebble.orderCount()).as("one renewal, not one per schedule").isEqualTo(3);
            Command result = download.get();
            assertThat(result.exitCode()).as(result.output()).isZero();
            assertThat(result.output()).isEqualTo("200 4194304");
        }
    }

    @Test
    void aCaThatIsDownAtStartIsRetriedUntilItComesUp() throws Exception {
        int http = Pebble.freePort();
        int https = Pebble.freePort();
        int acme = Pebble.freePort();
        Path tls = work.resolve("pebble-tls");
        java.nio.file.Files.createDirectories(tls);
        Path trust = Pebble.writeTlsFiles(tls);
        URI directory = URI.create("https://localhost:" + acme + "/dir");
        try (Usher usher = start(config(http, https, work.resolve("down"), directory, trust, "later.example.com"))) {
            Thread.sleep(1500);
            assertThat(usher.certificates().certificateFor("later.example.com")).isNull();
            try (Pebble pebble = Pebble.builder().acmePort(acme).tlsFiles(tls).httpValidationPort(http)
                    .tlsValidationPort(https).start()) {
                CertifiedKey cert = await(usher, "later.example.com", null, Duration.ofSeconds(30));
                assertThat(TlsProbe.leafSha256(https, "later.example.com")).isEqualTo(cert.sha256());
                assertThat(pebble.orderCount()).isEqualTo(1);
            }
        }
    }
}
