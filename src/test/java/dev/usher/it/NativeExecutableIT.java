package dev.usher.it;

import com.sun.net.httpserver.HttpServer;
import dev.usher.migrate.NpmFixture;
import dev.usher.testing.Command;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Pebble;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The native executable tested like the JVM build: each test starts {@code target/native-image/usher run} as a
 * process ({@link NativeUsher}) and drives it with the same real clients the JVM tests use (curl, h2load, Chromium
 * over HTTP/3, Pebble for ACME, the admin UI's browser script). Run by run-tests after the native build
 * ({@code -Dtest=Native*IT -Dusher.native=...}); not part of the JVM run, which has no executable to test.
 */
class NativeExecutableIT {
    @TempDir
    static Path work;
    static Whoami backend;

    @BeforeAll
    static void startBackend() {
        NativeUsher.executable(); // fail at once, with the reason, when there is no executable
        backend = Whoami.start("127.0.0.1", 0, "native-backend");
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    private static Path dir(String name) throws Exception {
        return Files.createDirectories(work.resolve(name));
    }

    private static Command curl(String... args) {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        command.addAll(List.of(args));
        return Command.run(30, command);
    }

    @Test
    void selftestLoadsEveryNativeLibraryAndThePatchedJdkNativesBehaveAsJdk25s() {
        Command c = NativeUsher.command("selftest");
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("checks passed (native executable)").doesNotContain("FAILED");
    }

    /** The JNI libraries native/build.sh puts beside the executable, as a start loads them. */
    private static final List<String> JNI_LIBRARIES = List.of("libnetty_transport_native_epoll_x86_64.so",
            "libnetty_tcnative_linux_x86_64.so", "libnetty_quiche42_linux_x86_64.so");

    @Test
    void loadsItsJniLibrariesFromTheLibFolderBesideItAndExtractsNothing() throws Exception {
        int httpsPort = Pebble.freePort();
        Path dir = dir("jni");
        Path tmp = dir("jni-tmp");
        Path lib = NativeUsher.executable().toRealPath().resolveSibling("lib");
        // Netty deletes an extracted library once loaded unless told otherwise: kept, an extraction would show
        try (NativeUsher usher = NativeUsher.start(dir, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:%d"}
                admin: off
                data: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                """.formatted(httpsPort, dir.resolve("data"), backend.port()), httpsPort,
                List.of("-Djava.io.tmpdir=" + tmp, "-Dio.netty.native.deleteLibAfterLoading=false"))) {
            String maps = Files.readString(Path.of("/proc/" + usher.process.pid() + "/maps"));
            for (String library : JNI_LIBRARIES) {
                assertThat(maps).as(library).contains(lib.resolve(library).toString());
            }
            try (DirectoryStream<Path> zstd = Files.newDirectoryStream(lib, "libzstd-jni-*.so")) {
                for (Path library : zstd) {
                    assertThat(maps).as("zstd-jni").contains(library.toString());
                }
            }
            try (Stream<Path> files = Files.list(tmp)) {
                assertThat(files.toList()).as("extracted into java.io.tmpdir").isEmpty();
            }
        }
    }

    @Test
    void theExecutableCopiedWithoutItsLibFolderExtractsTheLibrariesAndPasses() throws Exception {
        Path alone = dir("alone").resolve("usher");
        Files.copy(NativeUsher.executable(), alone, StandardCopyOption.COPY_ATTRIBUTES);
        Command c = Command.run(60, List.of(alone.toString(), "selftest"));
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(c.output()).contains("checks passed (native executable)");
    }

    @Test
    void routesByHostOverOneKeepAliveConnection() throws Exception {
        int port = Pebble.freePort();
        Whoami other = Whoami.start("127.0.0.1", 0, "other-backend");
        try (NativeUsher usher = NativeUsher.start(dir("routing"), """
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                sites:
                  a.example.com: 127.0.0.1:%d
                  b.example.com: 127.0.0.1:%d
                """.formatted(port, backend.port(), other.port()), port);
             RawHttp client = new RawHttp(port)) {
            for (int i = 0; i < 3; i++) {
                RawHttp.Response a = client.send("GET /a" + i + " HTTP/1.1\r\nHost: a.example.com\r\n\r\n").read();
                assertThat(a.status()).isEqualTo(200);
                assertThat(a.body()).contains("native-backend").contains("GET /a" + i);
                RawHttp.Response b = client.send("GET /b HTTP/1.1\r\nHost: b.example.com\r\n\r\n").read();
                assertThat(b.body()).contains("other-backend");
            }
            RawHttp.Response unknown = client.send("GET / HTTP/1.1\r\nHost: c.example.com\r\n\r\n").read();
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(usher.output()).doesNotContain("Exception");
        } finally {
            other.close();
        }
    }

    @Test
    void getsACertificateFromPebbleAndServesTheSameOneAfterARestart() throws Exception {
        int httpPort = Pebble.freePort();
        int httpsPort = Pebble.freePort();
        try (Pebble pebble = Pebble.start(httpPort, httpsPort)) {
            StringBuilder pem = new StringBuilder();
            for (X509Certificate root : pebble.issuingRoots()) {
                pem.append("-----BEGIN CERTIFICATE-----\n")
                        .append(Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(root.getEncoded()))
                        .append("\n-----END CERTIFICATE-----\n");
            }
            Path dir = dir("acme");
            Path roots = Files.writeString(dir.resolve("pebble-roots.pem"), pem);
            String yaml = """
                    listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                    admin: off
                    data: %s
                    email: ops@example.com
                    acme: {ca: "%s", trust: "%s", challenge: http-01}
                    sites:
                      app.example.com: 127.0.0.1:%d
                    """.formatted(httpPort, httpsPort, dir.resolve("data"), pebble.directory(), pebble.trustPem(),
                    backend.port());
            List<String> request = List.of("--cacert", roots.toString(), "--resolve",
                    "app.example.com:" + httpsPort + ":127.0.0.1", "https://app.example.com:" + httpsPort + "/acme");
            String sha256;
            int orders;
            try (NativeUsher usher = NativeUsher.start(dir, yaml, httpsPort)) {
                Command c = awaitCurl(request, usher);
                assertThat(c.output()).as(usher.output()).contains("native-backend").contains("GET /acme");
                sha256 = TlsProbe.leafSha256(httpsPort, "app.example.com");
                orders = pebble.orderCount();
            }
            try (NativeUsher usher = NativeUsher.start(dir, yaml, httpsPort)) {
                Command c = curl(request.toArray(String[]::new));
                assertThat(c.exitCode()).as(c.output() + usher.output()).isZero();
                assertThat(TlsProbe.leafSha256(httpsPort, "app.example.com")).isEqualTo(sha256);
                Thread.sleep(1000);
                assertThat(pebble.orderCount()).as("no new order after the restart").isEqualTo(orders);
            }
        }
    }

    /** curl until the certificate is there (the first order takes a few seconds). */
    private static Command awaitCurl(List<String> request, NativeUsher usher) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Command c;
        do {
            c = curl(request.toArray(String[]::new));
            if (c.exitCode() == 0) {
                return c;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("no HTTPS answer within 60 s: " + c.output() + "\nUsher:\n" + usher.output());
    }

    /** Usher with a local-CA site on HTTPS (TCP and QUIC) and plain HTTP; returns the CA's root file. */
    private static NativeUsher startLocalCa(Path dir, int httpsPort) throws Exception {
        return NativeUsher.start(dir, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:%d"}
                admin: off
                data: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(httpsPort, dir.resolve("data"), backend.port(), backend.port()), httpsPort);
    }

    @Test
    void servesHttp2ToH2loadWithALocalCaCertificate() throws Exception {
        int httpsPort = Pebble.freePort();
        Path dir = dir("h2");
        try (NativeUsher usher = startLocalCa(dir, httpsPort)) {
            Path root = dir.resolve("data/ca/root.pem");
            Command c = curl("--http2", "--cacert", root.toString(), "-o", "/dev/null", "-w", "%{http_version}",
                    "--resolve", "app.localhost:" + httpsPort + ":127.0.0.1", "https://app.localhost:" + httpsPort + "/");
            assertThat(c.output()).as(usher.output()).isEqualTo("2");
            Command load = Command.run(60, List.of("h2load", "-n", "2000", "-c", "4", "-m", "10",
                    "https://127.0.0.1:" + httpsPort + "/load"));
            assertThat(load.exitCode()).as(load.output()).isZero();
            assertThat(load.output()).contains("2000 succeeded, 0 failed, 0 errored").contains("status codes: 2000 2xx");
        }
    }

    @Test
    void servesHttp3ToChromium() throws Exception {
        int httpsPort = Pebble.freePort();
        Path dir = dir("h3");
        try (NativeUsher usher = startLocalCa(dir, httpsPort)) {
            String dom = ChromiumHttp3Test.loadOverQuic(dir, "app.localhost", httpsPort, "/from-chromium");
            assertThat(dom).as(usher.output()).contains("GET /from-chromium").contains("native-backend");
        }
    }

    @Test
    void relaysWebsocketMessagesBothWays() throws Exception {
        int port = Pebble.freePort();
        try (NativeUsher usher = NativeUsher.start(dir("ws"), """
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(port, backend.port()), port)) {
            WebsocketTest.Collector collector = new WebsocketTest.Collector();
            WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + port + "/chat"), collector).get(5, TimeUnit.SECONDS);
            ws.sendText("hello through the native usher", true).get(5, TimeUnit.SECONDS);
            assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("hello through the native usher");
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            assertThat(collector.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        }
    }

    @Test
    void reloadsOnSighupUnderLoadWithoutAFailedRequest() throws Exception {
        int port = Pebble.freePort();
        Whoami next = Whoami.start("127.0.0.1", 0, "next-backend");
        String yaml = """
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                sites:
                  load.example.com: 127.0.0.1:%d
                """;
        try (NativeUsher usher = NativeUsher.start(dir("reload"), yaml.formatted(port, backend.port()), port)) {
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger answered = new AtomicInteger();
            ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
            CountDownLatch done = new CountDownLatch(4);
            for (int t = 0; t < 4; t++) {
                Thread.ofVirtual().start(() -> {
                    try (RawHttp client = new RawHttp(port)) {
                        while (running.get()) {
                            RawHttp.Response r = client.send("GET / HTTP/1.1\r\nHost: load.example.com\r\n\r\n").read();
                            if (r.status() != 200) {
                                failures.add("status " + r.status());
                            }
                            answered.incrementAndGet();
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    } finally {
                        done.countDown();
                    }
                });
            }
            Thread.sleep(500);
            Files.writeString(usher.config, yaml.formatted(port, next.port()));
            usher.hangup();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (next.requestsSeen() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            Thread.sleep(300);
            running.set(false);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(failures).as(usher.output()).isEmpty();
            assertThat(next.requestsSeen()).as("requests reach the new backend after the reload").isPositive();
            assertThat(answered.get()).isGreaterThan(100);
        } finally {
            next.close();
        }
    }

    @Test
    void sigtermLetsTheRequestInFlightFinishAndExitsZero() throws Exception {
        int port = Pebble.freePort();
        NativeUsher usher = NativeUsher.start(dir("shutdown"), """
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                timeouts: {shutdown: 10s}
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(port, backend.port()), port);
        try (RawHttp client = new RawHttp(port)) {
            long seen = backend.requestsSeen();
            client.send("GET /?wait=2s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (backend.requestsSeen() == seen && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            usher.process.destroy(); // SIGTERM
            assertThat(usher.awaitLine("stopping:")).contains("1 requests in flight");
            RawHttp.Response answer = client.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(usher.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(usher.process.exitValue()).as(usher.output()).isZero();
        } finally {
            usher.close();
        }
    }

    @Test
    void servesAStaticRootSiteWithRanges() throws Exception {
        int port = Pebble.freePort();
        Path dir = dir("static");
        Path www = Files.createDirectories(dir.resolve("www"));
        Files.writeString(www.resolve("index.html"), "<h1>native static</h1>");
        Files.writeString(www.resolve("notes.txt"), "hello from a file");
        try (NativeUsher usher = NativeUsher.start(dir, """
                listen: {http: "127.0.0.1:%d", https: off}
                admin: off
                sites:
                  127.0.0.1: {root: %s}
                """.formatted(port, www), port);
             RawHttp client = new RawHttp(port)) {
            RawHttp.Response index = client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertThat(index.status()).as(usher.output()).isEqualTo(200);
            assertThat(index.header("content-type")).startsWith("text/html");
            assertThat(index.body()).isEqualTo("<h1>native static</h1>");
            RawHttp.Response range = client.send(
                    "GET /notes.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=0-4\r\n\r\n").read();
            assertThat(range.status()).isEqualTo(206);
            assertThat(range.body()).isEqualTo("hello");
            RawHttp.Response hidden = client.send("GET /../usher.yaml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertThat(hidden.status()).isBetween(400, 404);
        }
    }

    /** PROXY protocol v2's fixed signature, the first 12 bytes of its header. */
    private static final byte[] PROXY_V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49,
        0x54, 0x0A};

    @Test
    void relaysATcpStreamWithAProxyProtocolV2Header() throws Exception {
        int port = Pebble.freePort();
        int httpPort = Pebble.freePort(); // waited for instead of the stream's port: a probe there would be relayed
        CompletableFuture<byte[]> header = new CompletableFuture<>();
        try (ServerSocket echo = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = echo.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] fixed = in.readNBytes(16); // signature, version/command, family, address length
                    byte[] addresses = in.readNBytes(((fixed[14] & 0xff) << 8) | (fixed[15] & 0xff));
                    header.complete(ByteBuffer.allocate(16 + addresses.length).put(fixed).put(addresses).array());
                    in.transferTo(s.getOutputStream()); // then an echo, until the client's FIN
                } catch (IOException e) {
                    header.completeExceptionally(e);
                }
            });
            try (NativeUsher usher = NativeUsher.start(dir("stream"), """
                    listen: {http: "127.0.0.1:%d", https: off}
                    admin: off
                    streams:
                      "127.0.0.1:%d": {to: "127.0.0.1:%d", proxy_protocol: v2}
                    """.formatted(httpPort, port, echo.getLocalPort()), httpPort);
                 Socket client = new Socket("127.0.0.1", port)) {
                client.setSoTimeout(20_000);
                client.getOutputStream().write("ping through the stream".getBytes(StandardCharsets.UTF_8));
                client.shutdownOutput();
                String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(answer).as(usher.output()).isEqualTo("ping through the stream");
                byte[] h = header.get(5, TimeUnit.SECONDS);
                assertThat(Arrays.copyOf(h, 12)).isEqualTo(PROXY_V2_SIGNATURE);
                assertThat(h[13]).as("TCP over IPv4").isEqualTo((byte) 0x11);
                assertThat(Arrays.copyOfRange(h, 16, 20)).as("the client's address")
                        .isEqualTo(new byte[] {127, 0, 0, 1});
                int clientPort = ((h[24] & 0xff) << 8) | (h[25] & 0xff);
                assertThat(clientPort).isEqualTo(client.getLocalPort());
            }
        }
    }

    @Test
    void importsAnNpmDatabaseThroughSqlite() throws Exception {
        Path dir = dir("import");
        Path data = dir.resolve("npm/data");
        try (NpmFixture npm = NpmFixture.create(data)) {
            npm.insert("proxy_host", Map.of("domain_names", NpmFixture.names("notes.example.com"),
                    "forward_host", "notes", "forward_port", 8080));
        }
        Path out = dir.resolve("usher.yaml");
        Command c = NativeUsher.command("import", "npm", data.resolve("database.sqlite").toString(), "-o",
                out.toString(), "--data", dir.resolve("usher-data").toString());
        assertThat(c.exitCode()).as(c.output()).isZero();
        assertThat(Files.readString(out)).contains("http://notes.example.com: notes:8080  # from NPM proxy_host 1");
        Command check = NativeUsher.command("check", "--config", out.toString());
        assertThat(check.exitCode()).as(check.output()).isZero();
    }

    @Test
    void twoNodesShareOneOrderThroughRedisAndTheOtherNodeAnswersTheChallenge() throws Exception {
        Path dir = dir("fleet");
        Path key = Files.writeString(dir.resolve("fleet.key"), "ab".repeat(32) + "\n"); // 32 bytes in hex
        int aHttp = Pebble.freePort();
        int aHttps = Pebble.freePort();
        int bHttp = Pebble.freePort();
        int bHttps = Pebble.freePort();
        Pebble.Later ca = Pebble.Later.in(dir);
        String common = """
                admin: off
                acme: {ca: "%s", trust: "%s", challenge: http-01}
                storage: {redis: "%%s", encryption_key_file: %s, node: %%s}
                data: %%s
                listen: {http: "127.0.0.1:%%d", https: "127.0.0.1:%%d"}
                sites:
                  fleet.example.com: 127.0.0.1:%d
                """.formatted(ca.directory(), ca.trust(), key, backend.port());
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
             // b starts while the CA is down: its own order fails, and its next attempt is a minute away
             NativeUsher b = NativeUsher.start(dir("fleet-b"), common.formatted(redis.uri(), "b",
                     dir.resolve("fleet-b/data"), bHttp, bHttps), bHttp);
             // the CA validates at node b only
             Pebble pebble = ca.builder().httpValidationPort(bHttp)
                     .tlsValidationPort(bHttps).start();
             NativeUsher a = NativeUsher.start(dir("fleet-a"), common.formatted(redis.uri(), "a",
                     dir.resolve("fleet-a/data"), aHttp, aHttps), aHttp)) {
            String sha = awaitCertificate(aHttps, "fleet.example.com", a, b);
            assertThat(redis.cli("HGET", "usher:cert:" + issuerId(pebble) + ":fleet.example.com", "node"))
                    .as("node a placed the order, b answered its challenge").isEqualTo("a");
            assertThat(awaitCertificate(bHttps, "fleet.example.com", b, a)).as("b serves what a stored")
                    .isEqualTo(sha);
            assertThat(pebble.orderCount()).as("one order for the fleet").isEqualTo(1);
            String dump = new String(redis.dump(), StandardCharsets.ISO_8859_1);
            assertThat(dump).contains("BEGIN CERTIFICATE").doesNotContain("PRIVATE KEY");
        }
    }

    /** The Redis key part naming Pebble's directory, as the fleet stores it. */
    private static String issuerId(Pebble pebble) {
        return dev.usher.cert.CertManager.acmeIssuerId(pebble.directory());
    }

    /** The sha256 of the certificate {@code port} serves for {@code name}, once it serves one (within 60 s). */
    private static String awaitCertificate(int port, String name, NativeUsher usher, NativeUsher other)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return TlsProbe.leafSha256(port, name);
            } catch (Exception notYet) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no certificate for " + name + " within 60 s:\n" + usher.output()
                            + "\nthe other node:\n" + other.output(), notYet);
                }
                Thread.sleep(200);
            }
        }
    }

    @Test
    void adminUiAddsASiteInTheBrowser() throws Exception {
        int httpPort = Pebble.freePort();
        int adminPort = Pebble.freePort();
        HttpServer newBackend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        newBackend.createContext("/", exchange -> {
            byte[] body = "new-backend".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        newBackend.start();
        Path dir = dir("admin");
        try (NativeUsher usher = NativeUsher.start(dir, """
                # Usher config for the admin UI browser test
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:0"}
                admin: "127.0.0.1:%d"
                data: %s

                sites:
                  # the app everyone uses
                  app.localhost: 127.0.0.1:%d
                """.formatted(httpPort, adminPort, dir.resolve("data"), backend.port()), adminPort)) {
            AdminUiBrowserTest.runScenario("add", "http://127.0.0.1:" + adminPort, usher.config,
                    Map.of("SITE_NAME", "new.localhost", "SITE_UPSTREAM", "127.0.0.1:" + newBackend.getAddress().getPort(),
                            "RENEW_NAME", "app.localhost"));
            assertThat(Files.readString(usher.config)).contains("new.localhost").contains("# the app everyone uses");
            try (RawHttp client = new RawHttp(httpPort)) {
                RawHttp.Response r = client.send("GET / HTTP/1.1\r\nHost: new.localhost\r\n\r\n").read();
                assertThat(r.body()).as(usher.output()).isEqualTo("new-backend");
            }
        } finally {
            newBackend.stop(0);
        }
    }
}
