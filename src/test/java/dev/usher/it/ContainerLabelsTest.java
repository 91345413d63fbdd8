package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Podman;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sites from container labels, against real containers: Debian's podman serving its Docker-compatible API on a unix
 * socket ({@link Podman}), busybox httpd containers on podman's bridge networks, a real Usher in-process that
 * discovers them. Waits are polls with generous deadlines (the machine may be loaded): how long a new container
 * takes to be served is measured in bench/container-latency.sh, not asserted here.
 */
class ContainerLabelsTest {
    /** How long a change may take to show here, on a loaded machine (typically well under a second). */
    private static final long DEADLINE_MS = 15_000;

    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Podman podman;

    @BeforeAll
    static void startPodman() throws Exception {
        podman = Podman.start(Files.createDirectories(dir.resolve("podman")));
    }

    @AfterAll
    static void stopPodman() throws Exception {
        if (podman != null) {
            podman.close();
        }
    }

    @AfterEach
    void removeContainers() {
        podman.removeAll();
    }

    private static RunningUsher usher(String docker) throws Exception {
        return servers.usher("docker: " + docker + "\n");
    }

    private static String socket() {
        return "{socket: " + podman.socket() + "}";
    }

    private static RawHttp.Response get(int port, String host) throws IOException {
        try (RawHttp http = new RawHttp(port)) {
            return http.send("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").read();
        }
    }

    /** Waits until {@code host} answers {@code status} (with {@code body} when given); fails after the deadline. */
    private static RawHttp.Response await(int port, String host, int status, String body) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        RawHttp.Response last = null;
        while (System.nanoTime() < deadline) {
            last = get(port, host);
            if (last.status() == status && (body == null || last.body().strip().equals(body))) {
                return last;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(host + " did not answer " + status + (body == null ? "" : " " + body) + " within "
                + DEADLINE_MS + " ms; last: " + (last == null ? "nothing" : last.status() + " " + last.body()));
    }

    @Test
    void aContainerIsServedWhenItStartsGoneWhenItStopsAndRoutedAnewWithOtherLabels() throws Exception {
        RunningUsher usher = usher(socket());
        assertThat(get(usher.port(), "a.test").status()).isEqualTo(404);

        long started = System.nanoTime();
        String a = podman.run("a", "--label", "usher.host=a.test", "--label", "usher.port=80");
        await(usher.port(), "a.test", 200, "a");
        System.out.printf("a.test served %d ms after podman run returned%n", (System.nanoTime() - started) / 1_000_000);

        podman.stop(a);
        await(usher.port(), "a.test", 404, null);

        podman.remove(a);
        podman.run("a", "--label", "usher.host=b.test", "--expose", "80"); // the one exposed port: no usher.port
        await(usher.port(), "b.test", 200, "a");
        assertThat(get(usher.port(), "a.test").status()).isEqualTo(404);
    }

    @Test
    void twoContainersWithOneHostShareItsRequests() throws Exception {
        RunningUsher usher = usher(socket());
        podman.run("one", "--label", "usher.host=lb.test", "--label", "usher.port=80");
        podman.run("two", "--label", "usher.host=lb.test", "--label", "usher.port=80");
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        Set<String> seen = new HashSet<>();
        while (seen.size() < 2 && System.nanoTime() < deadline) {
            RawHttp.Response answer = get(usher.port(), "lb.test");
            if (answer.status() == 200) {
                seen.add(answer.body().strip());
            }
            Thread.sleep(20);
        }
        assertThat(seen).containsExactlyInAnyOrder("one", "two");
    }

    @Test
    void aContainerOnTwoNetworksIsReachedOnTheConfiguredOneAlsoWhenAttachedAfterItStarted() throws Exception {
        String front = podman.network("front");
        String back = podman.network("back");
        Path file = dir.resolve("two-networks.yaml");
        Files.writeString(file, "listen: {http: \"127.0.0.1:0\", https: off}\nadmin: \"127.0.0.1:0\"\n"
                + "docker: {socket: " + podman.socket() + ", network: " + back + "}\n");
        Usher usher = servers.track(Usher.start(ConfigLoader.load(file), 2));
        usher.reloadFrom(file);
        int port = usher.httpAddress().getPort();

        String c = podman.run("multi", "--network", front, "--label", "usher.host=multi.test", "--label",
                "usher.port=80");
        Thread.sleep(500);
        assertThat(get(port, "multi.test").status()).as("only on %s, not on %s", front, back).isEqualTo(404);

        podman.podman("network", "connect", back, c);
        await(port, "multi.test", 200, "multi");
        String backAddress = podman.podman("inspect", "--format",
                "{{(index .NetworkSettings.Networks \"" + back + "\").IPAddress}}", c);
        String sites = admin(usher, "/api/sites");
        assertThat(sites).contains("\"source\":\"labels\"")
                .contains("{\"name\":\"" + c + "\",\"network\":\"" + back + "\",\"address\":\"" + backAddress
                        + ":80\"}");
        assertThat(admin(usher, "/metrics")).contains("usher_sites{source=\"labels\"} 1")
                .contains("usher_sites{source=\"file\"} 0");
    }

    @Test
    void theFileWinsANameConflictAndAReloadFromTheFileKeepsTheLabelSites() throws Exception {
        Whoami fromFile = servers.backend("from-file");
        Path file = dir.resolve("conflict.yaml");
        String head = "listen: {http: \"127.0.0.1:0\", https: off}\nadmin: off\ndocker: " + socket() + "\n";
        Files.writeString(file, head + "sites:\n  http://both.test: " + Servers.address(fromFile) + "\n");
        Usher usher = servers.track(Usher.start(ConfigLoader.load(file), 2));
        var reloader = usher.reloadFrom(file);
        int port = usher.httpAddress().getPort();
        podman.run("both", "--label", "usher.host=both.test,labels.test", "--label", "usher.port=80");
        await(port, "labels.test", 200, "both");

        assertThat(get(port, "both.test").body()).contains("Hostname: from-file");

        Files.writeString(file, head + "sites:\n  http://other.test: " + Servers.address(fromFile) + "\n");
        assertThat(reloader.reload("test").ok()).isTrue();
        assertThat(get(port, "labels.test").body().strip()).isEqualTo("both");
        assertThat(get(port, "both.test").body().strip()).isEqualTo("both"); // no longer in the file
        assertThat(get(port, "other.test").body()).contains("Hostname: from-file");
    }

    @Test
    void theApiSocketRestartedIsReconnectedAndReListedWhileTheKnownSitesKeepServing() throws Exception {
        RunningUsher usher = usher(socket());
        podman.run("kept", "--label", "usher.host=kept.test", "--label", "usher.port=80");
        await(usher.port(), "kept.test", 200, "kept");

        podman.stopService();
        String late = podman.run("late", "--label", "usher.host=late.test", "--label", "usher.port=80");
        Thread.sleep(1000);
        assertThat(get(usher.port(), "kept.test").body().strip()).as("served while the API is away")
                .isEqualTo("kept");
        assertThat(get(usher.port(), "late.test").status()).isEqualTo(404);

        podman.startService();
        await(usher.port(), "late.test", 200, "late");
        assertThat(get(usher.port(), "kept.test").status()).isEqualTo(200);
        assertThat(late).isNotEmpty();
    }

    @Test
    void aBadLabelIsReportedLikeAConfigErrorAndTheOtherContainersAreServed() throws Exception {
        List<String> logged = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                synchronized (logged) {
                    logged.add(new java.util.logging.SimpleFormatter().formatMessage(record));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("dev.usher.ContainerSites");
        logger.addHandler(capture);
        try {
            RunningUsher usher = usher(socket());
            String bad = podman.run("bad", "--label", "usher.host=bad.test", "--label", "usher.port=80", "--label",
                    "usher.gzip=yes");
            podman.run("good", "--label", "usher.host=good.test", "--label", "usher.port=80");
            await(usher.port(), "good.test", 200, "good");
            assertThat(get(usher.port(), "bad.test").status()).isEqualTo(404);
            synchronized (logged) {
                assertThat(logged).contains("container " + bad + ": label usher.gzip: expected true or false, found "
                        + "a string (\"yes\"); YAML 1.2 reads yes as text, so write true or false (this container is "
                        + "not routed; the others are)");
            }
        } finally {
            logger.removeHandler(capture);
        }
    }

    @Test
    void aTraefikLabelledContainerIsServedUnchangedOverHttpAndHttps() throws Exception {
        RunningUsher usher = servers.usher("listen: {http: \"127.0.0.1:0\", https: \"127.0.0.1:0\"}\nhttp3: false\n"
                + "data: " + Files.createDirectories(dir.resolve("traefik-data")) + "\ndocker: " + socket() + "\n");
        podman.run("traefik", "--label", "traefik.enable=true",
                "--label", "traefik.http.routers.web.rule=Host(`plain.test`)",
                "--label", "traefik.http.routers.secure.rule=Host(`secure.test`) || Host(`www.secure.test`)",
                "--label", "traefik.http.routers.secure.tls=true",
                "--label", "traefik.http.routers.secure.entrypoints=websecure",
                "--label", "traefik.http.services.app.loadbalancer.server.port=80");
        await(usher.port(), "plain.test", 200, "traefik");
        int https = usher.usher.httpsAddress().getPort();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
        Command curl;
        do {
            curl = Command.run(30, List.of("curl", "-sk", "--max-time", "5", "--resolve",
                    "www.secure.test:" + https + ":127.0.0.1", "https://www.secure.test:" + https + "/"));
        } while (!curl.output().strip().equals("traefik") && System.nanoTime() < deadline && sleep(100));
        assertThat(curl.output().strip()).isEqualTo("traefik");
        assertThat(get(usher.port(), "secure.test").status()).as("plain HTTP is redirected").isEqualTo(308);
    }

    @Test
    void fiftyLabelledContainersAreAllServedAndAllGoAway() throws Exception {
        RunningUsher usher = usher(socket());
        ExecutorService starters = Executors.newFixedThreadPool(8);
        List<Future<String>> started = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            String name = "s" + i;
            started.add(starters.submit(() -> podman.run(name, "--label", "usher.host=" + name + ".test",
                    "--label", "usher.port=80")));
        }
        for (Future<String> f : started) {
            f.get(5, TimeUnit.MINUTES);
        }
        starters.shutdown();
        for (int i = 1; i <= 50; i++) {
            await(usher.port(), "s" + i + ".test", 200, "s" + i);
        }
        assertThat(usher.usher.config().labelSites()).hasSize(50);

        podman.removeAll();
        for (int i = 1; i <= 50; i++) {
            await(usher.port(), "s" + i + ".test", 404, null);
        }
    }

    private static boolean sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
        return true;
    }

    private static String admin(Usher usher, String path) throws IOException {
        try (RawHttp http = new RawHttp(usher.adminAddress().getPort())) {
            return http.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").read()
                    .body();
        }
    }
}
