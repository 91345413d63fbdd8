package dev.usher.it;

import dev.usher.cli.CliAccess;
import dev.usher.testing.RawHttp;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The admin web UI in a real browser: headless Chromium (Debian's) driven by playwright-core from
 * {@code ui-tests/admin-ui.mjs}, against a real Usher started here from a config file with comments and real
 * backends. The script works the page like a user; this class checks what must have happened on disk and on the wire.
 * Screenshots go to {@code target/ui-screenshots/}.
 */
class AdminUiBrowserTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    private static final Path SCRIPT = ROOT.resolve("ui-tests/admin-ui.mjs");
    private static final Path SCREENSHOTS = ROOT.resolve("target/ui-screenshots");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final long SCENARIO_TIMEOUT_SECONDS = 60;

    @TempDir
    Path folder;
    private final List<AutoCloseable> running = new ArrayList<>();

    /** A missing browser or npm install is a failure with the fix in the message, never a skip. */
    @BeforeAll
    static void browserToolsArePresent() throws Exception {
        assertThat(Files.isExecutable(CHROMIUM))
                .as("Chromium is missing at %s: install it (Debian: apt-get install chromium; .ci/run does this)", CHROMIUM)
                .isTrue();
        assertThat(ROOT.resolve("ui-tests/node_modules/playwright-core/package.json"))
                .as("ui-tests/node_modules is missing: run `npm ci --prefix ui-tests` (./run-tests and .ci/run do this)")
                .exists();
        Process node;
        try {
            node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("Node.js ('node') is not on PATH; the browser tests need it (Debian: apt-get install nodejs npm)", e);
        }
        assertThat(node.waitFor(30, TimeUnit.SECONDS) && node.exitValue() == 0).as("node --version failed").isTrue();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : running.reversed()) {
            c.close();
        }
    }

    @Test
    void addsASiteWithTheFormWritesOnlyItsLinesAndRoutesToTheNewBackend() throws Exception {
        int newBackend = backend("new-backend");
        ReloadingUsher usher = start();
        String before = Files.readString(usher.file);
        for (int i = 0; i < 7; i++) { // some traffic for the list's requests-per-minute column
            assertThat(get(usher, "old.localhost").status()).isEqualTo(200);
        }
        String certificate = usher.usher.certificates().certificateFor("app.localhost").sha256();

        runScenario("add", usher, Map.of("SITE_NAME", "new.localhost", "SITE_UPSTREAM", "127.0.0.1:" + newBackend,
                "RENEW_NAME", "app.localhost"));

        String after = Files.readString(usher.file);
        List<String> added = insertedLines(before, after);
        assertThat(String.join("\n", added)).as("the lines the form added").contains("new.localhost")
                .contains("127.0.0.1:" + newBackend);
        assertThat(after).contains("# Usher config for the admin UI browser test", "# the app everyone uses",
                "# kept as plain HTTP");
        RawHttp.Response answer = get(usher, "new.localhost");
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("new-backend");
        assertThat(SCREENSHOTS.resolve("site-list.png")).exists();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (usher.usher.certificates().certificateFor("app.localhost").sha256().equals(certificate)
                && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(usher.usher.certificates().certificateFor("app.localhost").sha256())
                .as("the certificate after Renew now").isNotEqualTo(certificate);
    }

    @Test
    void downloadsABackupAndRestoresItAfterADelete() throws Exception {
        ReloadingUsher usher = start();
        byte[] original = Files.readAllBytes(usher.file);
        Path backup = folder.resolve("downloaded-backup.tar.gz");

        runScenario("backup-restore", usher, Map.of("SITE_NAME", "old.localhost", "BACKUP_FILE", backup.toString()));

        Process tar = new ProcessBuilder("tar", "-tzf", backup.toString()).redirectErrorStream(true).start();
        String listing = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as("tar -tzf: %s", listing).isZero();
        assertThat(listing.lines()).as("the backup's entries").contains("usher.yaml")
                .anyMatch(entry -> entry.startsWith("data/") && entry.endsWith("key.pem"));
        assertThat(new String(Files.readAllBytes(usher.file), StandardCharsets.UTF_8)).as("the restored config file")
                .isEqualTo(new String(original, StandardCharsets.UTF_8));
        assertThat(get(usher, "old.localhost").body()).isEqualTo("old-backend");
    }

    @Test
    void editsASiteReplacingOnlyItsLinesAndRoutesToItsNewBackends() throws Exception {
        int first = backend("edited-1");
        int second = backend("edited-2");
        ReloadingUsher usher = start();
        String before = Files.readString(usher.file);

        runScenario("edit", usher, Map.of("SITE_NAME", "old.localhost", "SITE_UPSTREAM", "127.0.0.1:" + first,
                "SITE_UPSTREAM_2", "127.0.0.1:" + second));

        String after = Files.readString(usher.file);
        List<String> removed = changedLines(after, before);
        List<String> added = changedLines(before, after);
        assertThat(removed).as("the lines the edit replaced").singleElement().asString().contains("old.localhost");
        assertThat(String.join("\n", added)).as("the lines the edit wrote").contains("old.localhost",
                "127.0.0.1:" + first, "127.0.0.1:" + second, "security_headers: true");
        java.util.Set<String> answers = new java.util.HashSet<>();
        for (int i = 0; i < 4; i++) {
            answers.add(get(usher, "old.localhost").body());
        }
        assertThat(answers).as("round robin over the two new backends").containsExactlyInAnyOrder("edited-1", "edited-2");
    }

    @Test
    void editsTheSitesPathsWithTheirUpstreamAndStripFlagAndRoutesThem() throws Exception {
        int api = backend("api-backend");
        ReloadingUsher usher = start();

        runScenario("paths", usher, Map.of("SITE_NAME", "old.localhost", "SITE_UPSTREAM", "127.0.0.1:" + api));

        String after = Files.readString(usher.file);
        assertThat(after).contains("\"/api/\": {to: 127.0.0.1:" + api + ", strip_prefix: true}")
                .doesNotContain("/gone/");
        assertThat(get(usher, "old.localhost", "/api/x").body()).isEqualTo("api-backend");
        assertThat(get(usher, "old.localhost").body()).isEqualTo("old-backend");
    }

    @Test
    void makesAStaticSiteAndPutsAnotherInMaintenanceFromTheForm() throws Exception {
        ReloadingUsher usher = start();
        Path www = Files.createDirectories(usher.file.resolveSibling("www"));
        Files.writeString(www.resolve("index.html"), "static-page");

        runScenario("self-hosting", usher, Map.of("STATIC_NAME", "files.localhost", "STATIC_ROOT", www.toString(),
                "SITE_NAME", "old.localhost"));

        assertThat(Files.readString(usher.file)).contains("root: " + www).contains("maintenance: true")
                .contains("wait_for_backend: 10s");
        assertThat(get(usher, "files.localhost").body()).isEqualTo("static-page");
        assertThat(get(usher, "old.localhost").status()).isEqualTo(503);
    }

    @Test
    void showsTheServersErrorAtTheInvalidUpstreamsFieldAndLeavesTheFileAlone() throws Exception {
        ReloadingUsher usher = start();
        byte[] before = Files.readAllBytes(usher.file);

        runScenario("invalid-upstream", usher, Map.of("SITE_NAME", "broken.localhost",
                "SITE_UPSTREAM", "127.0.0.1:99999", "EXPECT_ERROR", "99999"));

        assertThat(Files.readAllBytes(usher.file)).as("the config file after a refused save").isEqualTo(before);
        assertThat(get(usher, "broken.localhost").status()).isEqualTo(404);
    }

    @Test
    void deletesASiteAfterConfirmationRemovingOnlyItsLines() throws Exception {
        ReloadingUsher usher = start();
        String before = Files.readString(usher.file);
        assertThat(get(usher, "old.localhost").status()).isEqualTo(200);

        runScenario("delete", usher, Map.of("SITE_NAME", "old.localhost"));

        String after = Files.readString(usher.file);
        List<String> removed = insertedLines(after, before);
        assertThat(String.join("\n", removed)).contains("old.localhost");
        assertThat(after).doesNotContain("old.localhost").contains("# the app everyone uses", "app.localhost");
        assertThat(get(usher, "old.localhost").status()).isEqualTo(404);
    }

    @Test
    void asksForThePasswordWhenOneIsConfigured() throws Exception {
        String password = "correct horse battery staple";
        ReloadingUsher usher = start("""
                admin: {listen: "127.0.0.1:0", password: "%s"}
                """.formatted(bcrypt(password)));

        runScenario("login", usher, Map.of("ADMIN_PASSWORD", password, "SITE_NAME", "app.localhost"));
    }

    @Test
    void saysTheFileChangedOnDiskKeepsTheInputAndSavesAfterReloadingTheData() throws Exception {
        int newBackend = backend("late-backend");
        ReloadingUsher usher = start();

        runScenario("stale", usher, Map.of("SITE_NAME", "late.localhost", "SITE_UPSTREAM", "127.0.0.1:" + newBackend));

        String after = Files.readString(usher.file);
        assertThat(after).as("the hand edit survives the save after reloading")
                .contains("# edited by hand while the form was open").contains("late.localhost");
        assertThat(get(usher, "late.localhost").body()).isEqualTo("late-backend");
    }

    @Test
    void listsTheStreamsWithTheirBackendsState() throws Exception {
        int app = backend("stream-backend");
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ReloadingUsher usher = ReloadingUsher.start(folder, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                sites:
                  mail.localhost: {to: 127.0.0.1:%d, passthrough: true}
                streams:
                  "127.0.0.1:%d": {to: 127.0.0.1:%d, health: {interval: 1s}}
                """.formatted(folder.resolve("data"), app, port, app));
        running.add(usher);
        runScenario("streams", usher, Map.of("STREAM_NAME", "127.0.0.1:" + port, "STREAM_UPSTREAM", "127.0.0.1:" + app,
                "PASSTHROUGH_NAME", "mail.localhost"));
    }

    /** Usher with the test config (comments, a local-CA site, a plain one); {@code admin} replaces the admin line. */
    private ReloadingUsher start(String... admin) throws Exception {
        int app = backend("app-backend");
        int app2 = backend("app-backend-2");
        int old = backend("old-backend");
        String adminLine = admin.length > 0 ? admin[0] : "admin: \"127.0.0.1:0\"\n";
        ReloadingUsher usher = ReloadingUsher.start(folder, """
                # Usher config for the admin UI browser test
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                %sdata: %s

                sites:
                  # the app everyone uses
                  app.localhost: [127.0.0.1:%d, 127.0.0.1:%d]
                  www.localhost: {redirect: "https://app.localhost{uri}"}

                  # kept as plain HTTP
                  http://old.localhost: 127.0.0.1:%d
                """.formatted(adminLine, folder.resolve("data"), app, app2, old));
        running.add(usher);
        return usher;
    }

    /** A backend answering every request with {@code name}. */
    private int backend(String name) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        byte[] body = name.getBytes(StandardCharsets.UTF_8);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        running.add(() -> server.stop(0));
        return server.getAddress().getPort();
    }

    private static RawHttp.Response get(ReloadingUsher usher, String host) throws IOException {
        return get(usher, host, "/");
    }

    private static RawHttp.Response get(ReloadingUsher usher, String host, String path) throws IOException {
        try (RawHttp raw = new RawHttp(usher.port())) {
            return raw.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").read();
        }
    }

    /** The hash {@code usher hash-password} prints for {@code password}. */
    private static String bcrypt(String password) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = CliAccess.run(List.of("hash-password", "--password-stdin"), password + "\n", out, err);
        assertThat(code).as("usher hash-password: %s", err.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8).trim();
    }

    /** The lines of {@code after} between the first and the last line that differ from {@code before}. */
    static List<String> changedLines(String before, String after) {
        List<String> a = before.lines().toList();
        List<String> b = after.lines().toList();
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
            tail++;
        }
        return b.subList(head, b.size() - tail);
    }

    /**
     * The lines {@code longer} has beyond {@code shorter}, when they form one block and everything else is unchanged;
     * fails otherwise (a write that touched other lines).
     */
    static List<String> insertedLines(String shorter, String longer) {
        List<String> a = shorter.lines().toList();
        List<String> b = longer.lines().toList();
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
            tail++;
        }
        if (head + tail != a.size() || b.size() <= a.size()) {
            fail("the file changed beyond one block of added or removed lines:%n--- before/after ---%n%s%n--- vs ---%n%s",
                    shorter, longer);
        }
        return b.subList(head, b.size() - tail);
    }

    /** Runs one scenario of the browser script; its output is the failure message. */
    private static void runScenario(String scenario, ReloadingUsher usher, Map<String, String> extra) throws Exception {
        runScenario(scenario, "http://127.0.0.1:" + usher.usher.adminAddress().getPort(), usher.file, extra);
    }

    /** Runs one scenario against the admin UI at {@code adminUrl} (also used by NativeExecutableIT). */
    static void runScenario(String scenario, String adminUrl, Path configFile, Map<String, String> extra)
            throws Exception {
        ProcessBuilder pb = new ProcessBuilder("node", SCRIPT.toString(), scenario).directory(ROOT.toFile())
                .redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("USHER_ADMIN_URL", adminUrl);
        env.put("USHER_CONFIG_FILE", configFile.toString());
        env.put("USHER_SCREENSHOTS", SCREENSHOTS.toString());
        env.putAll(extra);
        Process process = pb.start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (InputStream in = process.getInputStream()) {
                in.transferTo(output);
            } catch (IOException ignored) {
                // the process ended; what was read is kept
            }
        });
        boolean ended = process.waitFor(SCENARIO_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(10_000);
        String log = output.toString(StandardCharsets.UTF_8);
        assertThat(ended).as("browser scenario %s did not finish within %d s; its output:%n%s", scenario,
                SCENARIO_TIMEOUT_SECONDS, log).isTrue();
        assertThat(process.exitValue()).as("browser scenario %s failed; its output:%n%s", scenario, log).isZero();
    }
}
