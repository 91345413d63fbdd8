package dev.usher.admin;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.ConfigWatcher;
import dev.usher.reload.ReloadCounts;
import dev.usher.reload.Reloader;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin API against a real Usher started from a file with a real backend: every endpoint, versions (412, 428),
 * validation (422 with field paths, file untouched), line-preserving edits diffed, numbered backups, one reload per
 * write, CSRF refusals.
 */
class AdminApiTest {
    private static final String FILE = """
            # Usher on the test machine -- hand-written, comments must survive
            listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
            admin: "127.0.0.1:0"
            data: ./data      # relative to this file

            sites:
              # the main app
              app.localhost: %s   # served over HTTPS by the local CA

              # legacy, plain HTTP
              http://old.localhost:
                  to: [%s]
                  gzip: false
            # end of sites

            timeouts: {connect: 2s}
            """;

    @TempDir
    Path folder;
    Whoami a;
    Whoami b;
    Path file;
    AdminUnderTest admin;
    Usher usher;
    Reloader reloader;
    HttpClient http;
    String csrf;

    @BeforeEach
    void start() throws Exception {
        a = Whoami.start("127.0.0.1", 0, "backend-a");
        b = Whoami.start("127.0.0.1", 0, "backend-b");
        file = folder.resolve("usher.yaml");
        Files.writeString(file, FILE.formatted(addr(a), addr(b)));
        admin = AdminUnderTest.start(file);
        usher = admin.usher;
        reloader = admin.reloader;
        http = admin.http();
        csrf = admin.csrf;
    }

    @AfterEach
    void stop() {
        admin.close();
        a.close();
        b.close();
    }

    private static String addr(Whoami w) {
        return "127.0.0.1:" + w.port();
    }

    @Test
    void sessionWithoutPasswordGivesTheCsrfToken() throws Exception {
        HttpResponse<String> r = get("/api/session");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type")).hasValue("application/json; charset=utf-8");
        assertThat(r.body()).contains("\"login_required\":false").contains("\"logged_in\":true")
                .contains("\"config_file\":" + Json.string(file.toString()));
        assertThat(csrf).hasSizeGreaterThan(40);
    }

    @Test
    void listsSitesWithStatusAndVersion() throws Exception {
        request("GET", "/", null, "old.localhost");
        HttpResponse<String> r = get("/api/sites");
        assertThat(r.statusCode()).isEqualTo(200);
        String version = ConfigFile.version(Files.readAllBytes(file));
        assertThat(r.headers().firstValue("etag")).hasValue("\"" + version + "\"");
        assertThat(r.body()).contains("\"version\":\"" + version + "\"")
                .contains("{\"name\":\"app.localhost\",\"kind\":\"proxy\",\"source\":\"file\",\"upstreams\":[{\"address\":\""
                        + addr(a) + "\",\"up\":true}],\"tls\":{\"policy\":\"auto\",\"issuer\":\"local\"")
                .contains("\"state\":\"valid\"")
                .contains("{\"name\":\"old.localhost\",\"kind\":\"proxy\",\"source\":\"file\",\"upstreams\":[{\"address\":\""
                        + addr(b)
                        + "\",\"up\":true}],\"tls\":{\"policy\":\"off\",\"issuer\":null,\"not_after\":null,"
                        + "\"state\":\"none\",\"error\":null},\"requests_last_minute\":1,\"editable\":true");
        HttpResponse<String> one = get("/api/sites/old.localhost");
        assertThat(one.body()).contains("\"site\":{\"name\":\"old.localhost\",\"upstreams\":[\"" + addr(b)
                + "\"],\"tls\":\"off\",\"policy\":\"round_robin\",\"gzip\":false,\"max_body\":null,"
                + "\"security_headers\":false,\"health_path\":null,\"insecure_skip_verify\":false,\"paths\":[],"
                + "\"root\":null,\"maintenance\":false,\"wait_for_backend\":null,\"forward_auth\":null}")
                .contains("\"yaml\":\"  http://old.localhost:\\n      to: [" + addr(b) + "]\\n      gzip: false\\n\"");
        assertThat(get("/api/sites/nope.localhost").statusCode()).isEqualTo(404);
    }

    @Test
    void addsASiteThatThenServesAndTouchesNoOtherLine() throws Exception {
        String before = Files.readString(file);
        ReloadCounts.Snapshot counts = usher.reloads().snapshot();
        HttpResponse<String> r = write("POST", "/api/sites", version(), """
                {"name": "new.localhost", "upstreams": ["%s"], "tls": "off"}""".formatted(addr(b)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String after = Files.readString(file);
        assertThat(after).isEqualTo(before.replace("      gzip: false\n", "      gzip: false\n"
                + "  http://new.localhost: " + addr(b) + "\n"));
        assertThat(field(r.body(), "version")).isEqualTo(ConfigFile.version(after.getBytes(StandardCharsets.UTF_8)));
        assertThat(request("GET", "/", null, "new.localhost")).contains("backend-b");
        // the API reloaded once; the file watcher that sees the same write does not reload again
        Thread.sleep(ConfigWatcher.Timing.DEFAULT.maxWait().toMillis() * 2);
        assertThat(usher.reloads().snapshot().successes()).isEqualTo(counts.successes() + 1);
        assertThat(write("POST", "/api/sites", field(r.body(), "version"), """
                {"name": "NEW.localhost", "upstreams": ["a:80"]}""").statusCode()).isEqualTo(409);
    }

    @Test
    void changesOnlyTheSitesLinesAndKeepsTheOldFileAsBackup() throws Exception {
        String before = Files.readString(file);
        HttpResponse<String> r = write("PUT", "/api/sites/app.localhost", version(), """
                {"name": "app.localhost", "upstreams": ["%s", "%s"], "policy": "first", "max_body": "1MiB",
                 "health_path": "/healthz", "security_headers": true}""".formatted(addr(b), addr(a)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(diff(before, Files.readString(file))).containsExactly(
                "-  app.localhost: " + addr(a) + "   # served over HTTPS by the local CA",
                "+  app.localhost:",
                "+      to: [" + addr(b) + ", " + addr(a) + "]", // the file's own 4-space step
                "+      policy: first",
                "+      max_body: 1MiB",
                "+      security_headers: true",
                "+      health: {path: /healthz}");
        assertThat(usher.secureRoutes().get().lookup("app.localhost").site().upstreams()).hasSize(2);
        Path backup = folder.resolve("data/config-backups/usher.yaml.1");
        assertThat(Files.readString(backup)).isEqualTo(before);
        String second = Files.readString(file);
        assertThat(write("DELETE", "/api/sites/old.localhost", version(), null).statusCode()).isEqualTo(200);
        assertThat(Files.readString(backup)).isEqualTo(second);
        assertThat(Files.readString(folder.resolve("data/config-backups/usher.yaml.2"))).isEqualTo(before);
    }

    @Test
    void pathsAndTheUpstreamSchemeAreEditedThroughTheFormAndServed() throws Exception {
        HttpResponse<String> r = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "old.localhost", "upstreams": ["%s"], "tls": "off",
                 "paths": [{"path": "/api/", "to": "%s", "strip_prefix": true}]}""".formatted(addr(b), addr(a)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Files.readString(file)).contains("\"/api/\": {to: " + addr(a) + ", strip_prefix: true}");
        assertThat(request("GET", "/api/x?q=1", null, "old.localhost")).contains("backend-a").contains("GET /x?q=1");
        assertThat(request("GET", "/other", null, "old.localhost")).contains("backend-b");
        assertThat(get("/api/sites/old.localhost").body()).contains("\"paths\":[{\"path\":\"/api/\",\"to\":\""
                + addr(a) + "\",\"strip_prefix\":true}]");

        byte[] before = Files.readAllBytes(file);
        HttpResponse<String> bad = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "old.localhost", "upstreams": ["a:80"], "tls": "off",
                 "paths": [{"path": "api/", "to": "a:80"}, {"path": "/ok/", "to": "bad host:80"}]}""");
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(422);
        assertThat(bad.body()).contains("{\"field\":\"paths[0].path\",\"message\":\"a path starts with \\\"/\\\"")
                .contains("{\"field\":\"paths[1].to\"");
        HttpResponse<String> scheme = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "old.localhost", "upstreams": ["ftp://files:21"], "tls": "off"}""");
        assertThat(scheme.body()).contains("{\"field\":\"upstreams[0]\",\"message\":\"unsupported scheme");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);

        HttpResponse<String> https = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "old.localhost", "upstreams": ["https://127.0.0.1:1"], "tls": "off",
                 "insecure_skip_verify": true}""");
        assertThat(https.statusCode()).as(https.body()).isEqualTo(200);
        assertThat(Files.readString(file)).contains("to: https://127.0.0.1:1")
                .contains("upstream_tls: {insecure_skip_verify: true}");
        assertThat(get("/api/sites/old.localhost").body()).contains("\"insecure_skip_verify\":true");
        // the list shows the scheme, and that the certificate is not checked
        assertThat(get("/api/sites").body()).contains("{\"address\":\"https://127.0.0.1:1\",\"up\":true,"
                + "\"unverified\":true}");
    }

    @Test
    void refusesAStaleVersionAfterAHandEditAndAMissingOne() throws Exception {
        String loaded = version();
        String hand = Files.readString(file).replace("# end of sites", "# end of sites (edited by hand)");
        Files.writeString(file, hand);
        HttpResponse<String> stale = write("DELETE", "/api/sites/app.localhost", loaded, null);
        assertThat(stale.statusCode()).isEqualTo(412);
        assertThat(stale.body()).contains("\"error\":\"the config file changed since you loaded it\"")
                .contains("\"version\":\"" + ConfigFile.version(hand.getBytes(StandardCharsets.UTF_8)) + "\"");
        HttpResponse<String> missing = write("DELETE", "/api/sites/app.localhost", null, null);
        assertThat(missing.statusCode()).isEqualTo(428);
        assertThat(Files.readString(file)).isEqualTo(hand);
        // with the new version the edit goes through and the hand edit stays
        assertThat(write("DELETE", "/api/sites/app.localhost", version(), null).statusCode()).isEqualTo(200);
        assertThat(Files.readString(file)).contains("(edited by hand)").doesNotContain("app.localhost");
        assertThat(get("/api/sites/app.localhost").statusCode()).isEqualTo(404);
    }

    @Test
    void invalidInputGetsFieldErrorsAndLeavesTheFileAlone() throws Exception {
        byte[] before = Files.readAllBytes(file);
        HttpResponse<String> r = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "old.localhost", "upstreams": ["a:80", "bad host:80"], "tls": "off", "max_body": "lots",
                 "health_path": "healthz"}""");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("{\"field\":\"upstreams[1]\",\"message\":\"an upstream address cannot contain "
                + "spaces\"}").contains("{\"field\":\"max_body\"").contains("{\"field\":\"health_path\"");
        HttpResponse<String> shape = write("POST", "/api/sites", version(), "{\"name\": \"\", \"upstreams\": []}");
        assertThat(shape.statusCode()).isEqualTo(422);
        assertThat(shape.body()).contains("\"field\":\"name\"").contains("\"field\":\"upstreams\"");
        assertThat(write("POST", "/api/sites", version(), "{not json").statusCode()).isEqualTo(400);
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(Files.exists(folder.resolve("data/config-backups"))).isFalse();
    }

    @Test
    void aHandEditElsewhereSurvivesAUiEdit() throws Exception {
        String hand = Files.readString(file).replace("timeouts: {connect: 2s}",
                "# tuned by hand\ntimeouts:   {connect: 3s}   # odd spacing");
        Files.writeString(file, hand);
        HttpResponse<String> r = write("PUT", "/api/sites/app.localhost", "\"" + field(get("/api/sites").body(),
                "version") + "\"", "{\"name\": \"app.localhost\", \"upstreams\": [\"" + addr(b) + "\"]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(diff(hand, Files.readString(file))).containsExactly(
                "-  app.localhost: " + addr(a) + "   # served over HTTPS by the local CA",
                "+  app.localhost: " + addr(b));
    }

    @Test
    void errorsOnTheNameAndCertificateFilesGoToTheirFields() throws Exception {
        HttpResponse<String> name = write("POST", "/api/sites", version(),
                "{\"name\": \"bad name.localhost\", \"upstreams\": [\"a:80\"]}");
        assertThat(name.statusCode()).isEqualTo(422);
        assertThat(name.body()).contains("{\"field\":\"name\"");
        HttpResponse<String> files = write("POST", "/api/sites", version(), "{\"name\": \"c.localhost\", "
                + "\"upstreams\": [\"a:80\"], \"tls\": {\"cert\": \"missing.pem\", \"key\": \"missing.key\"}}");
        assertThat(files.statusCode()).isEqualTo(422);
        assertThat(files.body()).contains("{\"field\":\"tls.cert\"");
    }

    @Test
    void renamesASite() throws Exception {
        HttpResponse<String> r = write("PUT", "/api/sites/old.localhost", version(), """
                {"name": "older.localhost", "upstreams": ["%s"], "tls": "off", "gzip": false}""".formatted(addr(b)));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(Files.readString(file)).contains("  # legacy, plain HTTP\n  http://older.localhost:\n"
                + "      to: " + addr(b) + "\n      gzip: false\n# end of sites");
        assertThat(get("/api/sites/old.localhost").statusCode()).isEqualTo(404);
        assertThat(request("GET", "/", null, "older.localhost")).contains("backend-b");
    }

    @Test
    void writesNeedTheCsrfTokenAndTheSameOrigin() throws Exception {
        byte[] before = Files.readAllBytes(file);
        csrf = "wrong";
        assertThat(write("DELETE", "/api/sites/app.localhost", version(), null).statusCode()).isEqualTo(403);
        csrf = null;
        assertThat(write("DELETE", "/api/sites/app.localhost", version(), null).statusCode()).isEqualTo(403);
        csrf = field(get("/api/session").body(), "csrf");
        HttpResponse<String> cross = http.send(HttpRequest.newBuilder(uri("/api/sites/app.localhost"))
                .header("If-Match", version()).header("X-Usher-CSRF", csrf)
                .header("Origin", "http://evil.example").DELETE().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(cross.statusCode()).isEqualTo(403);
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
    }

    @Test
    void certificatesRenewReloadAndTheRawConfig() throws Exception {
        HttpResponse<String> certs = get("/api/certificates");
        assertThat(certs.body()).contains("\"name\":\"app.localhost\"").contains("\"state\":\"valid\"")
                .contains("\"not_before\":\"").contains("\"next_renewal\":\"").contains("\"error\":null");
        String sha = usher.certificates().certificateFor("app.localhost").sha256();
        HttpResponse<String> renew = write("POST", "/api/certificates/app.localhost/renew", null, "");
        assertThat(renew.statusCode()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (usher.certificates().certificateFor("app.localhost").sha256().equals(sha)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isNotEqualTo(sha);
        assertThat(write("POST", "/api/certificates/nope.localhost/renew", null, "").statusCode()).isEqualTo(404);
        HttpResponse<String> reload = write("POST", "/api/reload", null, "");
        assertThat(reload.statusCode()).isEqualTo(200);
        assertThat(reload.body()).contains("\"changes\":");
        HttpResponse<String> text = get("/api/config");
        assertThat(field(text.body(), "path")).isEqualTo(file.toString());
        assertThat(text.body()).contains("\"text\":" + Json.string(Files.readString(file)));
        Files.writeString(file, "sites: [oops");
        Thread.sleep(ConfigWatcher.Timing.DEFAULT.maxWait().toMillis() + 300);
        HttpResponse<String> bad = write("POST", "/api/reload", null, "");
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(bad.body()).contains("\"errors\":[{\"field\":null,\"message\":\"" + file);
    }

    @Test
    void concurrentWritesFromTheSameVersionGoOneAtATime() throws Exception {
        String loaded = version();
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String json = "{\"name\": \"n" + i + ".localhost\", \"upstreams\": [\"" + addr(a) + "\"], \"tls\": \"off\"}";
            sent.add(http.sendAsync(HttpRequest.newBuilder(uri("/api/sites")).header("If-Match", loaded)
                    .header("X-Usher-CSRF", csrf).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        for (var f : sent) {
            statuses.add(f.get().statusCode());
        }
        assertThat(statuses).containsOnly(201, 412).containsOnlyOnce(201);
        assertThat(Files.readString(file).lines().filter(l -> l.contains("http://n"))).hasSize(1);
    }

    @Test
    void aFileThatIsNotYamlIsReportedNotGuessed() throws Exception {
        Files.writeString(file, "sites: [oops\n");
        HttpResponse<String> r = get("/api/sites");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("not valid YAML").contains("\"version\":\""
                + ConfigFile.version(Files.readAllBytes(file)) + "\"");
    }

    @Test
    void bodiesOverTheLimitAreRefusedBeforeTheyAreRead() throws Exception {
        HttpResponse<String> r = write("POST", "/api/sites", version(), "{\"name\": \"" + "x".repeat(70_000)
                + "\"}");
        assertThat(r.statusCode()).isEqualTo(413);
    }

    @Test
    void refusesFlowStyleSitesWith422() throws Exception {
        Files.writeString(file, "listen: {http: \"127.0.0.1:0\", https: off}\nadmin: \"127.0.0.1:0\"\n"
                + "sites: {a.localhost: \"127.0.0.1:9\"}\n");
        HttpResponse<String> r = write("POST", "/api/sites", version(), "{\"name\": \"b.localhost\", "
                + "\"upstreams\": [\"127.0.0.1:9\"]}");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("flow style");
    }

    @Test
    void backupRestoresIntoAFreshUsherWhichServesTheSameCertificate() throws Exception {
        HttpResponse<byte[]> backup = http.send(HttpRequest.newBuilder(uri("/api/backup")).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(backup.statusCode()).isEqualTo(200);
        assertThat(backup.headers().firstValue("content-type")).hasValue("application/gzip");
        assertThat(backup.headers().firstValue("content-disposition").orElseThrow())
                .matches("attachment; filename=\"usher-backup-[A-Za-z0-9._-]+-\\d{8}T\\d{6}Z\\.tar\\.gz\"");
        List<TarGz.Entry> entries = TarGz.read(new java.io.ByteArrayInputStream(backup.body()), Backups.LIMIT);
        assertThat(entries.get(0).name()).isEqualTo("usher.yaml");
        assertThat(entries.get(0).content()).isEqualTo(Files.readAllBytes(file));
        assertThat(entries).extracting(TarGz.Entry::name).anyMatch(n -> n.startsWith("data/") && n.endsWith(".key"))
                .noneMatch(n -> n.endsWith(".lock"));
        String served = usher.certificates().certificateFor("app.localhost").sha256();

        Path other = Files.createDirectory(folder.resolve("fresh"));
        Path otherFile = other.resolve("usher.yaml");
        Files.writeString(otherFile, "listen: {http: \"127.0.0.1:0\", https: \"127.0.0.1:0\"}\n"
                + "admin: \"127.0.0.1:0\"\ndata: ./data\nsites:\n  http://placeholder.localhost: 127.0.0.1:9\n");
        try (Usher fresh = Usher.start(ConfigLoader.load(otherFile), 1)) {
            fresh.reloadFrom(otherFile);
            HttpResponse<String> restored = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + fresh.adminAddress().getPort() + "/api/restore"))
                    .header("If-Match", ConfigFile.version(Files.readAllBytes(otherFile)))
                    .header("X-Usher-CSRF", field(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + fresh.adminAddress().getPort() + "/api/session")).build(),
                            HttpResponse.BodyHandlers.ofString()).body(), "csrf"))
                    .header("Content-Type", "application/gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(backup.body())).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(restored.statusCode()).as(restored.body()).isEqualTo(200);
            assertThat(Files.readString(otherFile)).isEqualTo(Files.readString(file));
            assertThat(fresh.certificates().certificateFor("app.localhost").sha256()).isEqualTo(served);
            assertThat(Files.readString(other.resolve("data/config-backups/usher.yaml.1")))
                    .contains("placeholder.localhost");
        }
        // restored over the same Usher after a renewal: the backed-up certificate is served again
        assertThat(write("POST", "/api/certificates/app.localhost/renew", null, "").statusCode()).isEqualTo(202);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (usher.certificates().certificateFor("app.localhost").sha256().equals(served)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isNotEqualTo(served);
        HttpResponse<String> back = http.send(HttpRequest.newBuilder(uri("/api/restore")).header("If-Match", version())
                .header("X-Usher-CSRF", csrf).header("Content-Type", "application/gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(backup.body())).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isEqualTo(served);
    }

    @Test
    void restoreRefusesClimbingEntriesAndChangesNothing() throws Exception {
        byte[] before = Files.readAllBytes(file);
        byte[] evil = TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false, before),
                new TarGz.Entry("data/../../evil.txt", 0644, 0, false, "x".getBytes(StandardCharsets.UTF_8))));
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/api/restore")).header("If-Match", version())
                .header("X-Usher-CSRF", csrf).header("Content-Type", "application/gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(evil)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("refused entry");
        assertThat(Files.exists(folder.getParent().resolve("evil.txt"))).isFalse();
        assertThat(Files.exists(folder.resolve("evil.txt"))).isFalse();
        byte[] invalid = TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false,
                "sites:\n  a.localhost: \"bad host\"\n".getBytes(StandardCharsets.UTF_8))));
        HttpResponse<String> bad = http.send(HttpRequest.newBuilder(uri("/api/restore")).header("If-Match", version())
                .header("X-Usher-CSRF", csrf).header("Content-Type", "application/gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(invalid)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(422);
        assertThat(bad.body()).contains("cannot contain spaces");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
    }

    // --- helpers ---

    private String version() throws Exception {
        return admin.version();
    }

    private URI uri(String path) {
        return admin.uri(path);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return admin.get(path);
    }

    private HttpResponse<String> write(String method, String path, String ifMatch, String json) throws Exception {
        return admin.write(method, path, ifMatch, json, csrf);
    }

    private String request(String method, String path, String body, String host) throws Exception {
        return admin.request(method, path, body, host);
    }

    static String field(String json, String name) {
        return AdminUnderTest.field(json, name);
    }

    /** The lines that differ, as "-old" and "+new", for two texts whose other lines are the same in order. */
    static List<String> diff(String before, String after) {
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
        List<String> out = new ArrayList<>();
        a.subList(head, a.size() - tail).forEach(l -> out.add("-" + l));
        b.subList(head, b.size() - tail).forEach(l -> out.add("+" + l));
        return out;
    }
}
