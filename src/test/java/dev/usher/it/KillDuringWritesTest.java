package dev.usher.it;

import dev.usher.cert.CertStore;
import dev.usher.config.ConfigLoader;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher run} killed with SIGKILL at random moments while the admin API rewrites its config and renews a
 * certificate as fast as it can, {@link #ROUNDS} times over the same files: after each kill the config is one of
 * the versions that were written whole (never a mix, never empty), every certificate in the data directory loads
 * (none is found damaged and moved aside), and Usher starts from them again.
 */
class KillDuringWritesTest {
    static final int ROUNDS = 10;
    static Whoami backend;
    @TempDir
    Path dir;

    @BeforeAll
    static void startBackend() {
        backend = Whoami.start("127.0.0.1", 0, "killed");
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private HttpResponse<String> admin(int port, String method, String path, String ifMatch, String json,
                                       String csrf) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5));
        if (method.equals("GET")) {
            b.GET();
        } else {
            b.method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json)).header("X-Usher-CSRF", csrf);
            if (json != null) {
                b.header("Content-Type", "application/json");
            }
        }
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]+)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    @Test
    void aKillDuringConfigWritesAndCertificateStoresLeavesWholeFiles() throws Exception {
        int adminPort = ReloadingUsher.freePort();
        Path config = dir.resolve("usher.yaml");
        Files.writeString(config, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:%d"
                data: ./data
                sites:
                  app.localhost: 127.0.0.1:%d
                """.formatted(adminPort, backend.port()));
        Set<String> written = ConcurrentHashMap.newKeySet(); // every content the file may hold
        written.add(Files.readString(config));
        Random random = new Random(16);
        int writesSeen = 0;
        int renewsSeen = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Path log = dir.resolve("usher-" + round + ".log");
            UsherProcess usher = UsherProcess.start(config, log, List.of());
            try {
                usher.awaitLine("admin endpoint on");
                assertThat(usher.output()).doesNotContain("damaged");
                String csrf = field(admin(adminPort, "GET", "/api/session", null, null, null).body(), "csrf");
                AtomicBoolean stop = new AtomicBoolean();
                AtomicInteger writes = new AtomicInteger();
                AtomicInteger renews = new AtomicInteger();
                int r = round;
                Thread writer = Thread.ofVirtual().start(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        try {
                            String version = field(admin(adminPort, "GET", "/api/sites", null, null, null).body(),
                                    "version");
                            String name = "k" + r + "-" + i + ".localhost";
                            String site = "{\"name\": \"" + name + "\", \"upstreams\": [\"127.0.0.1:"
                                    + backend.port() + "\"], \"tls\": \"off\"}";
                            HttpResponse<String> added = admin(adminPort, "POST", "/api/sites", version, site, csrf);
                            if (added.statusCode() == 201) {
                                written.add(Files.readString(config));
                                writes.incrementAndGet();
                            }
                        } catch (Exception e) {
                            return; // killed
                        }
                    }
                });
                Thread renewer = Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        try {
                            admin(adminPort, "POST", "/api/certificates/app.localhost/renew", null, null, csrf);
                            renews.incrementAndGet();
                            Thread.sleep(5);
                        } catch (Exception e) {
                            return;
                        }
                    }
                });
                Thread.sleep(200 + random.nextInt(1_000));
                usher.kill(); // SIGKILL, mid-write more often than not
                stop.set(true);
                writer.join(10_000);
                renewer.join(10_000);
                writesSeen += writes.get();
                renewsSeen += renews.get();
            } finally {
                usher.kill();
            }
            String now = Files.readString(config);
            // A write the kill interrupted after its rename but before its answer is whole too: accept a file that
            // parses and holds every site of one written version plus at most one more.
            ConfigLoader.load(config);
            assertThat(written.contains(now) || written.stream().anyMatch(w -> now.startsWith(w.stripTrailing())))
                    .as("round %d: the config is a version written whole:\n%s", round, now).isTrue();
            written.add(now);
            assertEveryCertificateLoads(round);
        }
        assertThat(writesSeen).as("config writes answered across the rounds").isGreaterThan(ROUNDS);
        assertThat(renewsSeen).as("renewals asked across the rounds").isGreaterThan(ROUNDS);
        UsherProcess last = UsherProcess.start(config, dir.resolve("usher-last.log"), List.of());
        try {
            assertThat(last.awaitLine("app.localhost: serving the stored certificate")).isNotEmpty();
        } finally {
            last.close();
        }
    }

    private void assertEveryCertificateLoads(int round) throws Exception {
        Path certs = dir.resolve("data/certificates");
        CertStore store = new CertStore(dir.resolve("data"));
        try (Stream<Path> issuers = Files.list(certs)) {
            for (Path issuer : issuers.toList()) {
                try (Stream<Path> names = Files.list(issuer)) {
                    for (Path name : names.filter(Files::isDirectory).toList()) {
                        assertThat(store.load(issuer.getFileName().toString(), name.getFileName().toString()))
                                .as("round %d: %s loads", round, name).isPresent();
                        try (Stream<Path> files = Files.list(name)) {
                            assertThat(files.map(p -> p.getFileName().toString()))
                                    .as("round %d: nothing moved aside as damaged", round)
                                    .noneMatch(f -> f.contains("damaged"));
                        }
                    }
                }
            }
        }
    }
}
