package dev.usher.it;

import dev.usher.cli.CliAccess;
import dev.usher.reload.ReloadCounts;
import dev.usher.reload.ReloadResult;
import dev.usher.testing.Command;
import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Hot reload of a running Usher through its real triggers (the file watcher, the admin endpoint, usher reload):
 * no failed request under load, websockets and keep-alive connections kept, bad edits refused, listeners re-bound,
 * sites added (with certificates) and removed.
 */
class ReloadTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami a;
    static Whoami b;

    @TempDir
    Path folder;

    @BeforeAll
    static void backends() {
        a = servers.backend("backend-a");
        b = servers.backend("backend-b");
    }

    /** The IP-literal site (java.net.http cannot set Host) with a response header naming the generation. */
    private static String plainConfig(int generation, boolean otherSite) {
        return """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                sites:
                  127.0.0.1:
                    to: 127.0.0.1:%d
                    headers: {X-Generation: "%d"}
                    health: {path: /, interval: 1s}
                """.formatted(a.port(), generation)
                + (otherSite ? "  other.example.com: {to: 127.0.0.1:" + b.port() + ", headers: {X-Gen: \""
                + generation + "\"}}\n" : "");
    }

    @Test
    void twentyReloadsUnderFiftyClientsFailNoRequest() throws Exception {
        try (ReloadingUsher usher = ReloadingUsher.start(folder, plainConfig(0, true))) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(5)).build();
            URI uri = URI.create("http://127.0.0.1:" + usher.port() + "/load");
            AtomicBoolean running = new AtomicBoolean(true);
            LongAdder requests = new LongAdder();
            LongAdder failures = new LongAdder();
            List<String> failureSamples = java.util.Collections.synchronizedList(new ArrayList<>());
            Map<String, LongAdder> generations = new ConcurrentHashMap<>();
            int clients = 50;
            CountDownLatch done = new CountDownLatch(clients);
            for (int i = 0; i < clients; i++) {
                // Half on keep-alive connections from the shared client, half on a new connection each time.
                boolean fresh = i % 2 == 1;
                Thread.ofVirtual().start(() -> {
                    try {
                        while (running.get()) {
                            try {
                                HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
                                String generation = fresh ? rawGet(uri) : send(client, request.build());
                                generations.computeIfAbsent(generation, g -> new LongAdder()).increment();
                            } catch (Exception e) {
                                failures.increment();
                                if (failureSamples.size() < 5) {
                                    failureSamples.add(String.valueOf(e));
                                }
                            }
                            requests.increment();
                        }
                    } finally {
                        done.countDown();
                    }
                });
            }
            long started = System.nanoTime();
            Thread.sleep(300);
            ReloadCounts.Snapshot counts = usher.counts();
            for (int generation = 1; generation <= 20; generation++) {
                String yaml = plainConfig(generation, generation % 2 == 0);
                if (generation % 2 == 0) {
                    usher.writeByRename(yaml);
                } else {
                    usher.writeInPlace(yaml);
                }
                counts = usher.awaitReloadAfter(counts);
                Thread.sleep(100);
            }
            Thread.sleep(300);
            running.set(false);
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("reload under load: %d clients, %d requests in %.1f s, %d reloads (%d refused), "
                            + "%d failed requests; responses per generation: %s%n", clients, requests.sum(), seconds,
                    counts.successes(), counts.failures(), failures.sum(), new java.util.TreeMap<>(generations));
            assertThat(failures.sum()).as("failed requests, e.g. %s", failureSamples).isZero();
            assertThat(counts.successes()).isEqualTo(20);
            assertThat(counts.failures()).isZero();
            assertThat(requests.sum()).isGreaterThan(1000);
            assertThat(generations).containsKeys("0", "20"); // the first config and the last one both served
            assertThat(generations.size()).isGreaterThan(10);
        }
    }

    /** A GET through java.net.http; returns the X-Generation header of a 200 from backend-a, or throws. */
    private static String send(HttpClient client, HttpRequest request) throws Exception {
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200 || !response.body().contains("backend-a")) {
            throw new AssertionError(response.statusCode() + " " + response.body());
        }
        return response.headers().firstValue("x-generation").orElse("none");
    }

    /** A GET on a new connection of its own (Connection: close); the X-Generation of a 200, or throws. */
    private static String rawGet(URI uri) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", uri.getPort())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("GET /fresh HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            socket.getInputStream().transferTo(all);
            String text = all.toString(StandardCharsets.ISO_8859_1);
            if (!text.startsWith("HTTP/1.1 200") || !text.contains("backend-a")) {
                throw new AssertionError(text);
            }
            int at = text.toLowerCase(java.util.Locale.ROOT).indexOf("\r\nx-generation: ");
            return at < 0 ? "none" : text.substring(at + 16, text.indexOf('\r', at + 2));
        }
    }

    @Test
    void theAccessLogIsTurnedOnMovedAndOffByReloads() throws Exception {
        java.util.function.Function<String, String> config = log -> """
                listen: {http: "127.0.0.1:0", https: off}
                admin: "127.0.0.1:0"
                access_log: %s
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(log, a.port());
        Path first = folder.resolve("first.log");
        Path second = folder.resolve("second.log");
        try (ReloadingUsher usher = ReloadingUsher.start(folder, config.apply("off"))) {
            HttpClient client = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + usher.port());
            send(client, HttpRequest.newBuilder(base.resolve("/while-off")).build());

            usher.writeInPlace(config.apply("first.log"));
            assertThat(usher.reloader.reload("test").ok()).isTrue();
            send(client, HttpRequest.newBuilder(base.resolve("/one")).build());
            AccessLogLines.await(first, "/one");

            usher.writeInPlace(config.apply("second.log"));
            assertThat(usher.reloader.reload("test").ok()).isTrue();
            send(client, HttpRequest.newBuilder(base.resolve("/two")).build());
            AccessLogLines.await(second, "/two");

            usher.writeInPlace(config.apply("off"));
            assertThat(usher.reloader.reload("test").ok()).isTrue();
            assertThat(usher.usher.accessLog()).isNull();
            send(client, HttpRequest.newBuilder(base.resolve("/three")).build());
            Thread.sleep(300); // the writer thread would have written it by now
            String firstLog = Files.readString(first);
            String secondLog = Files.readString(second);
            assertThat(firstLog).contains("/one").doesNotContain("/while-off").doesNotContain("/two")
                    .doesNotContain("/three");
            assertThat(secondLog).contains("/two").doesNotContain("/one").doesNotContain("/three");
        }
    }

    @Test
    void aRemovedBackendsIdleConnectionsAreClosedByTheReload() throws Exception {
        try (ReloadingUsher usher = ReloadingUsher.start(folder, plainConfig(0, true))) {
            try (Socket socket = new Socket("127.0.0.1", usher.port())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: other.example.com\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
                        .startsWith("HTTP/1.1 200").contains("backend-b");
            }
            awaitOpen(b, 1); // kept alive in Usher's pool
            usher.writeInPlace(plainConfig(1, false)); // other.example.com (backend b) removed
            assertThat(usher.reloader.reload("test").ok()).isTrue();
            awaitOpen(b, 0);
        }
    }

    private static void awaitOpen(Whoami backend, int connections) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (backend.openConnections() != connections && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(backend.openConnections()).as("connections open at the backend").isEqualTo(connections);
    }

    @Test
    void aWebsocketOpenedBeforeAReloadOfAnotherSiteStillEchoesAfterIt() throws Exception {
        try (ReloadingUsher usher = ReloadingUsher.start(folder, plainConfig(0, true))) {
            WebsocketTest.Collector collector = new WebsocketTest.Collector();
            WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + usher.port() + "/chat"), collector)
                    .get(5, TimeUnit.SECONDS);
            ws.sendText("before", true).get(5, TimeUnit.SECONDS);
            assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("before");
            // Change only the other site (its header), then remove it: the websocket's own site stays as it was.
            String changed = plainConfig(0, false) + "  other.example.com: 127.0.0.1:" + a.port() + "\n";
            ReloadCounts.Snapshot counts = usher.counts();
            usher.writeByRename(changed);
            counts = usher.awaitReloadAfter(counts);
            usher.writeInPlace(plainConfig(0, false));
            counts = usher.awaitReloadAfter(counts);
            assertThat(counts.successes()).isEqualTo(2);
            ws.sendText("after two reloads", true).get(5, TimeUnit.SECONDS);
            assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("after two reloads");
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            assertThat(collector.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        }
    }

    @Test
    void anInvalidEditKeepsTheOldConfigAndUsherReloadListsTheErrors() throws Exception {
        int adminPort = ReloadingUsher.freePort();
        String good = """
                listen: {http: "127.0.0.1:0", https: off}
                admin: "127.0.0.1:%d"
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(adminPort, a.port());
        try (ReloadingUsher usher = ReloadingUsher.start(folder, good)) {
            String bad = good.replace("app.example.com: 127.0.0.1:" + a.port(),
                    "app.example.com: 127.0.0.1:99999\n  new.example.com: {to: 127.0.0.1:" + b.port()
                            + ", gzipp: true}");
            ReloadCounts.Snapshot counts = usher.counts();
            usher.writeInPlace(bad);
            counts = usher.awaitReloadAfter(counts);
            assertThat(counts.failures()).isEqualTo(1);
            assertThat(counts.successes()).isZero();

            try (RawHttp raw = new RawHttp(usher.port())) {
                RawHttp.Response r = raw.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("backend-a");
                r = raw.send("GET / HTTP/1.1\r\nHost: new.example.com\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(404);
            }

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int exit = CliAccess.run(List.of("reload", "--config", usher.file.toString()), out, err);
            String errors = err.toString(StandardCharsets.UTF_8);
            System.out.println("usher reload of an invalid file, exit " + exit + ":\n" + errors);
            assertThat(exit).isEqualTo(1);
            assertThat(errors).containsPattern(java.util.regex.Pattern.quote(usher.file.toString()) + ":4:\\d+: ")
                    .containsPattern(java.util.regex.Pattern.quote(usher.file.toString()) + ":5:\\d+: .*gzipp")
                    .contains("keeps its current config");

            try (RawHttp raw = new RawHttp(adminPort)) {
                RawHttp.Response r = raw.send("POST /reload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
                        .read();
                assertThat(r.status()).isEqualTo(422);
                assertThat(r.body()).startsWith("[{\"file\":").contains("\"line\":4").contains("\"line\":5")
                        .contains("\"path\":").contains("\"message\":");
            }
            assertThat(usher.counts().failures()).isEqualTo(2);

            // Fixed: usher reload applies it and exits 0.
            usher.watcher.close(); // so that this reload is the command's, not the watcher's
            usher.writeInPlace(good.replace("sites:\n", "sites:\n  new.example.com: 127.0.0.1:" + b.port() + "\n"));
            out.reset();
            err.reset();
            exit = CliAccess.run(List.of("reload", "--config", usher.file.toString()), out, err);
            assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("reloaded: added new.example.com");
            try (RawHttp raw = new RawHttp(usher.port())) {
                RawHttp.Response r = raw.send("GET / HTTP/1.1\r\nHost: new.example.com\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("backend-b");
            }
        }
    }

    @Test
    void aListenAddressChangeTakesEffectWithoutCuttingOpenConnections() throws Exception {
        String before = """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(a.port());
        try (ReloadingUsher usher = ReloadingUsher.start(folder, before)) {
            int oldPort = usher.port();
            int newPort = ReloadingUsher.freePort();
            try (RawHttp open = new RawHttp(oldPort)) {
                assertThat(open.send("GET /1 HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status())
                        .isEqualTo(200);
                ReloadCounts.Snapshot counts = usher.counts();
                usher.writeByRename(before.replace("127.0.0.1:0", "127.0.0.1:" + newPort));
                assertThat(usher.awaitReloadAfter(counts).successes()).isEqualTo(1);

                assertThat(usher.usher.httpAddress().getPort()).isEqualTo(newPort);
                try (RawHttp fresh = new RawHttp(newPort)) {
                    RawHttp.Response r = fresh.send("GET /2 HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.body()).contains("GET /2");
                }
                assertThatThrownBy(() -> new Socket("127.0.0.1", oldPort).close()).isInstanceOf(ConnectException.class);
                // The connection accepted by the old listener still serves, on the new config.
                RawHttp.Response r = open.send("GET /3 HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("GET /3");
            }
        }
    }

    @Test
    void aListenerThatCannotBeBoundLeavesTheOldConfigServing() throws Exception {
        String before = """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(a.port());
        try (ReloadingUsher usher = ReloadingUsher.start(folder, before);
             java.net.ServerSocket taken = new java.net.ServerSocket(0, 50,
                     java.net.InetAddress.getByName("127.0.0.1"))) {
            usher.watcher.close();
            usher.writeInPlace(before.replace("127.0.0.1:0", "127.0.0.1:" + taken.getLocalPort())
                    .replace("app.example.com", "new.example.com"));
            ReloadResult result = usher.reloader.reload("test");
            assertThat(result.ok()).isFalse();
            assertThat(result.errors()).singleElement().satisfies(e -> {
                assertThat(e.path()).isEqualTo("listen.http");
                assertThat(e.message()).contains("already in use");
            });
            try (RawHttp raw = new RawHttp(usher.port())) {
                assertThat(raw.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status())
                        .isEqualTo(200);
                assertThat(raw.send("GET / HTTP/1.1\r\nHost: new.example.com\r\n\r\n").read().status())
                        .isEqualTo(404);
            }
        }
    }

    @Test
    void aLocalhostSiteAddedByReloadGetsALocalCertificateAndARemovedSiteAnswers404() throws Exception {
        Path data = folder.resolve("data");
        String before = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                sites:
                  http://plain.localhost: 127.0.0.1:%d
                  http://gone.localhost: 127.0.0.1:%d
                """.formatted(data, a.port(), b.port());
        try (ReloadingUsher usher = ReloadingUsher.start(folder, before)) {
            assertThat(usher.usher.httpsAddress()).isNull(); // no HTTPS site yet, so no HTTPS listener
            try (RawHttp raw = new RawHttp(usher.port())) {
                assertThat(raw.send("GET / HTTP/1.1\r\nHost: gone.localhost\r\n\r\n").read().body())
                        .contains("backend-b");
            }
            String after = before.replace("  http://gone.localhost: 127.0.0.1:" + b.port() + "\n",
                    "  new.localhost: 127.0.0.1:" + b.port() + "\n");
            ReloadCounts.Snapshot counts = usher.counts();
            usher.writeByRename(after);
            assertThat(usher.awaitReloadAfter(counts).successes()).isEqualTo(1);

            assertThat(usher.usher.httpsAddress()).isNotNull();
            int port = usher.usher.httpsAddress().getPort();
            Command c = Command.run(30, List.of("curl", "-sS", "--max-time", "20", "--cacert",
                    data.resolve("ca/root.pem").toString(), "--resolve", "new.localhost:" + port + ":127.0.0.1",
                    "https://new.localhost:" + port + "/added"));
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(c.output()).contains("backend-b").contains("GET /added");
            try (RawHttp raw = new RawHttp(usher.port())) {
                RawHttp.Response r = raw.send("GET /x HTTP/1.1\r\nHost: new.localhost\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(308);
                assertThat(r.header("location")).isEqualTo("https://new.localhost:" + port + "/x");
                assertThat(raw.send("GET / HTTP/1.1\r\nHost: gone.localhost\r\n\r\n").read().status())
                        .isEqualTo(404);
                assertThat(raw.send("GET / HTTP/1.1\r\nHost: plain.localhost\r\n\r\n").read().body())
                        .contains("backend-a");
            }
        }
    }

    @Test
    void reloadCountsAreKept() throws Exception {
        try (ReloadingUsher usher = ReloadingUsher.start(folder, plainConfig(0, false))) {
            usher.watcher.close();
            assertThat(usher.reloader.reload("test").ok()).isTrue();
            usher.writeInPlace("sites: [");
            ReloadResult bad = usher.reloader.reload("test");
            assertThat(bad.ok()).isFalse();
            assertThat(bad.errors().get(0).line()).isPositive();
            ReloadCounts.Snapshot counts = usher.counts();
            assertThat(counts.successes()).isEqualTo(1);
            assertThat(counts.failures()).isEqualTo(1);
            assertThat(counts.lastSuccess()).isNotNull();
            assertThat(counts.lastFailure()).isAfterOrEqualTo(counts.lastSuccess());
        }
    }
}
