package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A site's {@code paths:} through a real Usher to several real backends, over HTTP/1.1, HTTP/2 and HTTP/3: longest
 * match, exact paths, strip and add prefix, queries kept, a site of paths only, the slash redirect, a websocket on
 * a path, the access log naming the path, and a list of encoded and dot-segment forms of a protected prefix that
 * must never reach the protected backend.
 */
class PathRoutingTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    /** bcrypt of "secret" (cost 4, fast enough for a test). */
    static final String HASH = org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("secret".toCharArray(),
            new byte[16], 4);

    @TempDir
    static Path dir;
    static Usher usher;
    static Path accessLog;

    /**
     * Forms of a path under {@code /secret/} (or that resolve there) which must never be answered by the protected
     * backend: each gets a 403 (the prefix's allow list), a 400 (no normal form) or a 308 (to /secret/).
     */
    static final List<String> ESCAPES = List.of(
            "/secret/x", "/%73ecret/x", "/%73%65%63%72%65%74/x", "/public/../secret/x", "/public/%2e%2e/secret/x",
            "/public/%2E%2E/secret/x", "/public/.%2e/secret/x", "/public/%2e./secret/x", "/./secret/x",
            "/%2e/secret/x", "/public/./../secret/x", "/public/..%2fsecret/x", "/public/..%2Fsecret/x",
            "/public%2F..%2Fsecret/x", "/public/..%5Csecret/x", "/a/b/../../secret/x", "/secret",
            "/public/../secret", "/secret/./x", "/secret/../secret/x", "/api/../secret/x", "/%2e%2e/secret/x",
            "/public/%2e%2e%2fsecret/x", "/secret%2fx", "/secret%2Fx", "/secret%5Cx", "/public/..%2F..%2Fsecret/x", "/public/x/%2e%2e/%2E%2E/secret/",
            "/secret/%2e%2e/secret/x?q=1");
    /** Forms only a raw HTTP/1.1 request can carry. */
    static final List<String> RAW_ESCAPES = List.of("/public/..\\secret/x", "/public\\..\\secret/x");

    @BeforeAll
    static void start() throws Exception {
        Whoami web = servers.backend("web");
        Whoami api = servers.backend("api");
        Whoami api2 = servers.backend("api2");
        Whoami files = servers.backend("files");
        Whoami admin = servers.backend("admin");
        Whoami ws = servers.backend("wsback");
        accessLog = dir.resolve("access.log");
        String paths = """
                    paths:
                      /api/: {to: 127.0.0.1:%2$d, strip_prefix: true}
                      /api/v2/: 127.0.0.1:%3$d
                      /exact: 127.0.0.1:%3$d
                      /files*: {to: 127.0.0.1:%4$d, strip_prefix: true, add_prefix: /store}
                      /secret/: {to: 127.0.0.1:%5$d, allow: [192.0.2.0/24]}
                      /private/: {basic_auth: {alice: "%7$s"}}
                      /healthz: {respond: {status: 200, body: "ok"}}
                      /ws/: 127.0.0.1:%6$d
                """.formatted(0, api.port(), api2.port(), files.port(), admin.port(), ws.port(), HASH);
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                access_log: %s
                sites:
                  app.localhost:
                    to: 127.0.0.1:%d
                %s
                  http://app.test:
                    to: 127.0.0.1:%d
                %s
                  http://127.0.0.1:
                    to: 127.0.0.1:%d
                %s
                  http://only.test:
                    paths:
                      /v1/: {to: 127.0.0.1:%d, strip_prefix: true}
                """.formatted(dir.resolve("data"), accessLog, web.port(), paths, web.port(), paths, web.port(),
                paths, api.port());
        usher = servers.track(Usher.start(ConfigLoader.parse(yaml, "paths.yaml"), 2, Retry.DEFAULT,
                Duration.ofMillis(500)));
    }

    static RawHttp.Response http1(String target) throws Exception {
        return http1(target, "");
    }

    static RawHttp.Response http1(String target, String extraHeaders) throws Exception {
        try (RawHttp raw = new RawHttp(usher.httpAddress().getPort())) {
            return raw.send("GET " + target + " HTTP/1.1\r\nHost: app.test\r\n" + extraHeaders
                    + "Connection: close\r\n\r\n").read();
        }
    }

    /** The first line of whoami's echo: what the backend saw. */
    static String seen(RawHttp.Response r) {
        return r.body().lines().filter(l -> l.startsWith("GET ")).findFirst().orElse("");
    }

    @Test
    void theLongestMatchWinsAndEachPathReachesItsBackend() throws Exception {
        assertThat(http1("/").header("x-whoami")).isEqualTo("web");
        assertThat(http1("/apix").header("x-whoami")).isEqualTo("web");
        RawHttp.Response api = http1("/api/users?id=7&x=%2e");
        assertThat(api.header("x-whoami")).isEqualTo("api");
        assertThat(seen(api)).isEqualTo("GET /users?id=7&x=%2e HTTP/1.1");
        assertThat(api.body()).containsIgnoringCase("X-Forwarded-Prefix: /api");
        RawHttp.Response v2 = http1("/api/v2/things?y=1");
        assertThat(v2.header("x-whoami")).isEqualTo("api2");
        assertThat(seen(v2)).as("not stripped").isEqualTo("GET /api/v2/things?y=1 HTTP/1.1");
        assertThat(v2.body()).doesNotContainIgnoringCase("X-Forwarded-Prefix");
        assertThat(http1("/api/").header("x-whoami")).isEqualTo("api");
        assertThat(seen(http1("/api/"))).isEqualTo("GET / HTTP/1.1");
    }

    @Test
    void exactPathsMatchOnlyThemselves() throws Exception {
        assertThat(http1("/exact").header("x-whoami")).isEqualTo("api2");
        assertThat(http1("/exact?q=1").header("x-whoami")).isEqualTo("api2");
        assertThat(http1("/exact/").header("x-whoami")).isEqualTo("web");
        assertThat(http1("/exactly").header("x-whoami")).isEqualTo("web");
        RawHttp.Response health = http1("/healthz");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("ok");
    }

    @Test
    void aStarPatternStripsAndAddsAPrefix() throws Exception {
        RawHttp.Response a = http1("/files/report.pdf?v=2");
        assertThat(a.header("x-whoami")).isEqualTo("files");
        assertThat(seen(a)).isEqualTo("GET /store/report.pdf?v=2 HTTP/1.1");
        assertThat(seen(http1("/files.zip"))).isEqualTo("GET /store/.zip HTTP/1.1");
        assertThat(seen(http1("/files"))).isEqualTo("GET /store/ HTTP/1.1");
    }

    @Test
    void aPrefixWithoutItsSlashIsRedirectedToIt() throws Exception {
        RawHttp.Response r = http1("/private?x=1");
        assertThat(r.status()).isEqualTo(308);
        assertThat(r.header("location")).isEqualTo("/private/?x=1");
    }

    @Test
    void aPathCanProtectPartOfTheDefaultBackend() throws Exception {
        assertThat(http1("/private/notes").status()).isEqualTo(401);
        assertThat(http1("/public/../private/notes").status()).isEqualTo(401);
        assertThat(http1("/%70rivate/notes").status()).isEqualTo(401);
        assertThat(http1("/private%2Fnotes").status()).isEqualTo(401);
        String auth = "Authorization: Basic " + Base64.getEncoder().encodeToString("alice:secret".getBytes())
                + "\r\n";
        RawHttp.Response in = http1("/private/notes", auth);
        assertThat(in.status()).isEqualTo(200);
        assertThat(in.header("x-whoami")).isEqualTo("web");
    }

    @Test
    void noEncodedOrDotSegmentFormReachesTheProtectedBackendOverHttp1() throws Exception {
        assertThat(ESCAPES.size() + RAW_ESCAPES.size()).isGreaterThanOrEqualTo(20);
        List<String> failures = new ArrayList<>();
        for (String form : concat(ESCAPES, RAW_ESCAPES)) {
            RawHttp.Response r = http1(form);
            if (!refused(r.status()) || "admin".equals(r.header("x-whoami"))) {
                failures.add(form + " -> " + r.status() + " " + r.header("x-whoami"));
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void aDoubleEncodedDotOrADuplicateSlashIsAnotherPathForTheDefaultBackend() throws Exception {
        RawHttp.Response twice = http1("/public/%252e%252e/secret/x");
        assertThat(twice.header("x-whoami")).isEqualTo("web");
        assertThat(seen(twice)).isEqualTo("GET /public/%252e%252e/secret/x HTTP/1.1");
        RawHttp.Response slashes = http1("//secret/x");
        assertThat(slashes.header("x-whoami")).isEqualTo("web");
        assertThat(seen(slashes)).isEqualTo("GET //secret/x HTTP/1.1");
    }

    @Test
    void theBackendSeesTheNormalisedPath() throws Exception {
        assertThat(seen(http1("/a/./b/../c/%7Euser/%61"))).isEqualTo("GET /a/c/~user/a HTTP/1.1");
        assertThat(seen(http1("/group%2fproject/x"))).isEqualTo("GET /group%2Fproject/x HTTP/1.1");
    }

    @Test
    void aSiteOfPathsOnlyAnswers404ForTheRest() throws Exception {
        try (RawHttp raw = new RawHttp(usher.httpAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /v1/users HTTP/1.1\r\nHost: only.test\r\n\r\n").read();
            assertThat(r.header("x-whoami")).isEqualTo("api");
            assertThat(seen(r)).isEqualTo("GET /users HTTP/1.1");
            RawHttp.Response other = raw.send("GET /v2/users HTTP/1.1\r\nHost: only.test\r\n\r\n").read();
            assertThat(other.status()).isEqualTo(404);
        }
    }

    @Test
    void theAccessLogNamesThePathRoute() throws Exception {
        http1("/api/logged?n=1");
        assertThat(AccessLogLines.await(accessLog, "/api/logged?n=1")).contains("\"route\":\"/api/\"")
                .contains("\"site\":\"app.test\"");
        http1("/logged-default");
        assertThat(AccessLogLines.await(accessLog, "/logged-default")).contains("\"route\":null");
    }

    @Test
    void aWebsocketUpgradesOnAPathRoute() throws Exception {
        WebsocketTest.Collector collector = new WebsocketTest.Collector();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + usher.httpAddress().getPort() + "/ws/chat"), collector)
                .get(5, TimeUnit.SECONDS);
        ws.sendText("hello on a path", true).get(5, TimeUnit.SECONDS);
        assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("hello on a path");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
        assertThat(collector.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        assertThat(AccessLogLines.await(accessLog, "/ws/chat")).contains("\"route\":\"/ws/\"")
                .contains("\"status\":101");
    }

    @Test
    void pathsRouteAlikeOverHttp2() throws Exception {
        try (RawH2Client h2 = new RawH2Client(usher.httpsAddress().getPort(), "app.localhost")) {
            int stream = 1;
            Http2Headers api = h2Get(h2, stream, "/api/users?id=7");
            assertThat(api.status().toString()).isEqualTo("200");
            assertThat(api.get("x-whoami").toString()).isEqualTo("api");
            stream += 2;
            assertThat(h2Get(h2, stream, "/files/x").get("x-whoami").toString()).isEqualTo("files");
            stream += 2;
            assertThat(h2Get(h2, stream, "/other").get("x-whoami").toString()).isEqualTo("web");
            List<String> failures = new ArrayList<>();
            for (String form : ESCAPES) {
                stream += 2;
                Http2Headers r = h2Get(h2, stream, form);
                String by = r.get("x-whoami") == null ? null : r.get("x-whoami").toString();
                if (!refused(Integer.parseInt(r.status().toString())) || "admin".equals(by)) {
                    failures.add(form + " -> " + r.status() + " " + by);
                }
            }
            assertThat(failures).isEmpty();
        }
    }

    @Test
    void pathsRouteAlikeOverHttp3() throws Exception {
        try (H3Client h3 = H3Client.connect(usher.httpsAddress().getPort(), "app.localhost")) {
            H3Client.Response api = h3.get("/api/users?id=7").get(20, TimeUnit.SECONDS);
            assertThat(api.status()).isEqualTo(200);
            assertThat(api.headers().get("x-whoami").toString()).isEqualTo("api");
            assertThat(api.bodyStart()).contains("GET /users?id=7");
            List<String> failures = new ArrayList<>();
            for (String form : ESCAPES) {
                H3Client.Response r = h3.get(form).get(20, TimeUnit.SECONDS);
                CharSequence by = r.headers().get("x-whoami");
                if (!refused(r.status()) || by != null && "admin".contentEquals(by)) {
                    failures.add(form + " -> " + r.status() + " " + by);
                }
            }
            assertThat(failures).isEmpty();
        }
    }

    private static boolean refused(int status) {
        return status == 400 || status == 403 || status == 308;
    }

    private static Http2Headers h2Get(RawH2Client h2, int stream, String path) throws Exception {
        Http2Headers headers = new DefaultHttp2Headers().method("GET").path(path).scheme("https")
                .authority("app.localhost");
        h2.headers(stream, headers, true);
        while (true) {
            RawH2Client.Frame f = h2.read();
            if (f.type() == -1) {
                throw new AssertionError("connection closed waiting for stream " + stream);
            }
            if (f.stream() == stream && f.type() == RawH2Client.HEADERS) {
                return h2.decode(f);
            }
            if (f.stream() == stream && f.type() == RawH2Client.RST_STREAM) {
                throw new AssertionError("stream " + stream + " (" + path + ") reset");
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
