package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sites served from a folder ({@code root:}) with curl and raw sockets: types, validators and 304s, byte ranges
 * (206, multiple ranges, 416), precompressed siblings, index files, listings and single-page apps, a list of
 * traversal attempts each refused, HTTP/2 over TLS, and a 1 GiB file through a 64 MiB heap.
 */
class StaticFilesTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Path www;
    static byte[] big;
    static RunningUsher usher;
    static TlsTestServer tls;
    static dev.usher.whoami.Whoami backend;

    @BeforeAll
    static void start() throws Exception {
        www = Files.createDirectories(dir.resolve("www"));
        Files.writeString(dir.resolve("secret.txt"), "TOP SECRET\n");
        Files.createDirectories(dir.resolve("outside"));
        Files.writeString(dir.resolve("outside/secret.txt"), "TOP SECRET\n");
        Files.writeString(www.resolve("index.html"), "<h1>home</h1>\n");
        Files.writeString(www.resolve("style.css"), "body { color: red }\n");
        Files.writeString(www.resolve("digits.txt"), "0123456789abcdefghij");
        String js = "console.log('hello');\n".repeat(200);
        Files.writeString(www.resolve("app.js"), js);
        Files.write(www.resolve("app.js.gz"), gzip(js.getBytes(StandardCharsets.UTF_8)));
        // Different bytes from the gzip sibling's, so which sibling was sent shows.
        Files.write(www.resolve("app.js.zst"), com.github.luben.zstd.Zstd.compress(js.getBytes(StandardCharsets.UTF_8)));
        Files.createDirectories(www.resolve("docs"));
        Files.writeString(www.resolve("docs/index.html"), "<h1>docs</h1>\n");
        Files.createDirectories(www.resolve("empty"));
        Files.writeString(www.resolve("empty/note.txt"), "note\n");
        Files.createDirectories(www.resolve("sub"));
        Files.writeString(www.resolve(".env"), "PASSWORD=x\n");
        Files.createDirectories(www.resolve(".git"));
        Files.writeString(www.resolve(".git/config"), "[core]\n");
        Files.createSymbolicLink(www.resolve("escape.txt"), dir.resolve("secret.txt"));
        Files.createSymbolicLink(www.resolve("escape-dir"), dir.resolve("outside"));
        Files.createSymbolicLink(www.resolve("inner-link.txt"), www.resolve("digits.txt"));
        big = new byte[3 << 20];
        new Random(7).nextBytes(big);
        Files.write(www.resolve("big.bin"), big);
        Path spa = Files.createDirectories(dir.resolve("spa"));
        Files.writeString(spa.resolve("index.html"), "<div id=app></div>\n");
        backend = servers.backend("api");
        String sites = """
                sites:
                  static.example.com: {root: %1$s}
                  browse.example.com: {root: %1$s, browse: true}
                  spa.example.com: {root: %2$s, spa: index.html}
                  mixed.example.com:
                    to: 127.0.0.1:%3$d
                    paths: {/assets/: {root: %1$s, strip_prefix: true}}
                  site.example.com:
                    root: %1$s
                    paths: {/api/: "127.0.0.1:%3$d"}
                """.formatted(www, spa, backend.port());
        usher = servers.usher(sites);
        tls = servers.track(TlsTestServer.start(sites));
    }

    static byte[] gzip(byte[] data) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        }
        return out.toByteArray();
    }

    static RawHttp.Response get(String host, String path, String extraHeaders) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeaders + "\r\n").read();
        }
    }

    static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-s", "--max-time", "60", "-D", "-", "--resolve",
                "static.example.com:" + usher.port() + ":127.0.0.1"));
        cmd.addAll(List.of(args));
        return Processes.run(cmd);
    }

    static String url(String path) {
        return "http://static.example.com:" + usher.port() + path;
    }

    @Test
    void filesGoWithTheirTypeAndValidatorsAndHeadHasNoBody() throws Exception {
        RawHttp.Response css = get("static.example.com", "/style.css", "");
        assertThat(css.status()).isEqualTo(200);
        assertThat(css.header("content-type")).startsWith("text/css");
        assertThat(css.body()).isEqualTo("body { color: red }\n");
        assertThat(css.header("etag")).startsWith("\"");
        assertThat(css.header("last-modified")).endsWith("GMT");
        assertThat(css.header("accept-ranges")).isEqualTo("bytes");
        assertThat(get("static.example.com", "/", "").body()).isEqualTo("<h1>home</h1>\n");
        assertThat(get("static.example.com", "/inner-link.txt", "").body()).as("a link inside the root")
                .isEqualTo("0123456789abcdefghij");
        String head = curl("-I", url("/style.css"));
        assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("content-length: 20");
        RawHttp.Response post;
        try (RawHttp http = new RawHttp(usher.port())) {
            post = http.send("POST /style.css HTTP/1.1\r\nHost: static.example.com\r\nContent-Length: 0\r\n\r\n")
                    .read();
        }
        assertThat(post.status()).isEqualTo(405);
        assertThat(post.header("allow")).contains("GET");
    }

    @Test
    void conditionalRequestsGet304() throws Exception {
        RawHttp.Response first = get("static.example.com", "/style.css", "");
        String etag = first.header("etag");
        String modified = first.header("last-modified");
        RawHttp.Response same = get("static.example.com", "/style.css", "If-None-Match: " + etag + "\r\n");
        assertThat(same.status()).isEqualTo(304);
        assertThat(same.body()).isEmpty();
        assertThat(same.header("etag")).isEqualTo(etag);
        assertThat(get("static.example.com", "/style.css", "If-Modified-Since: " + modified + "\r\n").status())
                .isEqualTo(304);
        assertThat(get("static.example.com", "/style.css", "If-None-Match: \"other\"\r\n").status()).isEqualTo(200);
        assertThat(curl("-H", "If-None-Match: " + etag, url("/style.css"))).startsWith("HTTP/1.1 304");
    }

    @Test
    void byteRanges() throws Exception {
        RawHttp.Response one = get("static.example.com", "/digits.txt", "Range: bytes=2-5\r\n");
        assertThat(one.status()).isEqualTo(206);
        assertThat(one.body()).isEqualTo("2345");
        assertThat(one.header("content-range")).isEqualTo("bytes 2-5/20");
        assertThat(get("static.example.com", "/digits.txt", "Range: bytes=-3\r\n").body()).isEqualTo("hij");
        assertThat(get("static.example.com", "/digits.txt", "Range: bytes=17-\r\n").body()).isEqualTo("hij");
        RawHttp.Response two = get("static.example.com", "/digits.txt", "Range: bytes=0-1,10-11\r\n");
        assertThat(two.status()).isEqualTo(206);
        assertThat(two.header("content-type")).startsWith("multipart/byteranges; boundary=");
        assertThat(two.body()).contains("Content-Range: bytes 0-1/20", "\r\n\r\n01\r\n",
                "Content-Range: bytes 10-11/20", "\r\n\r\nab\r\n");
        RawHttp.Response beyond = get("static.example.com", "/digits.txt", "Range: bytes=50-60\r\n");
        assertThat(beyond.status()).isEqualTo(416);
        assertThat(beyond.header("content-range")).isEqualTo("bytes */20");
        String etag = one.header("etag");
        assertThat(get("static.example.com", "/digits.txt", "Range: bytes=0-0\r\nIf-Range: " + etag + "\r\n")
                .status()).isEqualTo(206);
        assertThat(get("static.example.com", "/digits.txt", "Range: bytes=0-0\r\nIf-Range: \"stale\"\r\n")
                .status()).as("a stale If-Range gets the whole file").isEqualTo(200);
        String curled = curl("-r", "1000000-1000009", url("/big.bin"), "-o", dir.resolve("part").toString());
        assertThat(curled).startsWith("HTTP/1.1 206");
        byte[] expected = java.util.Arrays.copyOfRange(big, 1000000, 1000010);
        assertThat(Files.readAllBytes(dir.resolve("part"))).isEqualTo(expected);
    }

    @Test
    void precompressedSiblingsForClientsThatAcceptThem() throws Exception {
        Path out = dir.resolve("app.gz.out");
        String gz = curl("-H", "Accept-Encoding: gzip", "-o", out.toString(), url("/app.js"));
        assertThat(gz).containsIgnoringCase("content-encoding: gzip").containsIgnoringCase("vary: accept-encoding")
                .containsIgnoringCase("content-type: text/javascript");
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(www.resolve("app.js.gz")));
        String decoded = Processes.run(List.of("curl", "-s", "--compressed", "-H", "Accept-Encoding: zstd", "--resolve",
                "static.example.com:" + usher.port() + ":127.0.0.1", url("/app.js")));
        assertThat(decoded).isEqualTo(Files.readString(www.resolve("app.js")));
        RawHttp.Response zstd = get("static.example.com", "/app.js", "Accept-Encoding: zstd, gzip\r\n");
        assertThat(zstd.header("content-encoding")).isEqualTo("zstd");
        assertThat(zstd.header("content-length")).isEqualTo(String.valueOf(Files.size(www.resolve("app.js.zst"))));
        RawHttp.Response plain = get("static.example.com", "/app.js", "");
        assertThat(plain.header("content-encoding")).isNull();
        assertThat(plain.body()).isEqualTo(Files.readString(www.resolve("app.js")));
    }

    @Test
    void foldersIndexesListingsAndSinglePageApps() throws Exception {
        RawHttp.Response noSlash = get("static.example.com", "/docs?x=1", "");
        assertThat(noSlash.status()).isEqualTo(308);
        assertThat(noSlash.header("location")).isEqualTo("/docs/?x=1");
        assertThat(get("static.example.com", "/docs/", "").body()).isEqualTo("<h1>docs</h1>\n");
        assertThat(get("static.example.com", "/empty/", "").status()).as("no index, no browse").isEqualTo(404);
        RawHttp.Response listing = get("browse.example.com", "/empty/", "");
        assertThat(listing.status()).isEqualTo(200);
        assertThat(listing.body()).contains("note.txt");
        assertThat(get("browse.example.com", "/", "").body()).as("an index wins over a listing")
                .isEqualTo("<h1>home</h1>\n");
        assertThat(get("browse.example.com", "/sub/", "").body()).doesNotContain(".env");
        assertThat(get("static.example.com", "/missing.html", "").status()).isEqualTo(404);
        RawHttp.Response app = get("spa.example.com", "/users/42/edit", "");
        assertThat(app.status()).isEqualTo(200);
        assertThat(app.body()).isEqualTo("<div id=app></div>\n");
    }

    @Test
    void aPathOfAProxiedSiteServesAFolderAndAPathOfAFolderSiteIsProxied() throws Exception {
        RawHttp.Response asset = get("mixed.example.com", "/assets/style.css", "");
        assertThat(asset.status()).isEqualTo(200);
        assertThat(asset.body()).isEqualTo("body { color: red }\n");
        assertThat(asset.header("x-whoami")).isNull();
        assertThat(get("mixed.example.com", "/assets/../secret.txt", "").body()).doesNotContain("TOP SECRET");
        RawHttp.Response proxied = get("mixed.example.com", "/style.css", "");
        assertThat(proxied.header("x-whoami")).isEqualTo("api");
        RawHttp.Response api = get("site.example.com", "/api/users", "");
        assertThat(api.header("x-whoami")).isEqualTo("api");
        assertThat(api.body()).contains("GET /api/users");
        RawHttp.Response home = get("site.example.com", "/", "");
        assertThat(home.body()).isEqualTo("<h1>home</h1>\n");
        assertThat(home.header("x-whoami")).isNull();
    }

    @Test
    void traversalAndHiddenFilesAreRefusedInEverySpelling() throws Exception {
        List<String> attempts = List.of(
                "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/%2e./secret.txt",
                "/sub/../../secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/..%2Fsecret.txt",
                "/%2e%2e%2fsecret.txt", "/..%5csecret.txt", "/..\\secret.txt", "/%2e%2e%5csecret.txt",
                "/%252e%252e/secret.txt", "/%c0%ae%c0%ae/secret.txt", "/%e0%80%ae%e0%80%ae/secret.txt",
                "/..%00/secret.txt", "/%00../secret.txt", "/.%00./secret.txt", "/./../secret.txt", "//../secret.txt",
                "/sub/..%2f..%2fsecret.txt", "/escape.txt", "/escape-dir/secret.txt", "/escape-dir/",
                "http://static.example.com/../secret.txt", "/.env", "/.git/config", "/sub/%2eenv", "/%2egit/config");
        for (String attempt : attempts) {
            RawHttp.Response r = get("static.example.com", attempt, "");
            assertThat(r.status()).as(attempt).isIn(400, 403, 404);
            assertThat(r.body()).as(attempt).doesNotContain("TOP SECRET", "PASSWORD", "[core]");
        }
        assertThat(attempts).hasSizeGreaterThanOrEqualTo(20);
        // curl with --path-as-is sends the dots unresolved too.
        assertThat(curl("--path-as-is", url("/../secret.txt"))).doesNotContain("TOP SECRET").doesNotStartWith(
                "HTTP/1.1 200");
    }

    @Test
    void overHttp2WithTls() throws Exception {
        Path out = dir.resolve("big.h2");
        List<String> cmd = List.of("curl", "-sk", "--http2", "--max-time", "60", "-D", "-", "-o", out.toString(),
                "-w", "version=%{http_version}\n", "--resolve", "static.example.com:" + tls.port() + ":127.0.0.1",
                "https://static.example.com:" + tls.port() + "/big.bin");
        String head = Processes.run(cmd);
        assertThat(head).startsWith("HTTP/2 200").contains("version=2");
        assertThat(Files.readAllBytes(out)).isEqualTo(big);
        String range = Processes.run(List.of("curl", "-sk", "--http2", "-r", "2-5", "--resolve",
                "static.example.com:" + tls.port() + ":127.0.0.1", "https://static.example.com:" + tls.port()
                        + "/digits.txt"));
        assertThat(range).isEqualTo("2345");
    }

    @Test
    void plainHttpSendsAWholeFileIntact() throws Exception {
        Path out = dir.resolve("big.h1");
        assertThat(curl("-o", out.toString(), url("/big.bin"))).startsWith("HTTP/1.1 200");
        assertThat(Files.readAllBytes(out)).isEqualTo(big);
    }

    @Test
    void aGibibyteFileThroughA64MibHeap(@TempDir Path run) throws Exception {
        Path root = Files.createDirectories(run.resolve("root"));
        long size = 1L << 30;
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("disk.img").toFile(), "rw")) {
            f.setLength(size); // sparse: no gibibyte written to the test machine's disk
            f.seek(size - 8);
            f.write("THE END\n".getBytes(StandardCharsets.US_ASCII));
        }
        Path config = run.resolve("usher.yaml");
        Files.writeString(config, """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                sites:
                  http://files.example.com: {root: %s}
                """.formatted(root));
        try (UsherProcess proc = UsherProcess.start(config, run.resolve("usher.log"), List.of())) {
            String out = Processes.run(List.of("curl", "-s", "--max-time", "120", "-o", "/dev/null", "-w",
                    "%{http_code} %{size_download}", "--resolve", "files.example.com:" + proc.port() + ":127.0.0.1",
                    "http://files.example.com:" + proc.port() + "/disk.img"));
            assertThat(out).isEqualTo("200 " + size);
            String tail = Processes.run(List.of("curl", "-s", "-r", "-8", "--resolve",
                    "files.example.com:" + proc.port() + ":127.0.0.1",
                    "http://files.example.com:" + proc.port() + "/disk.img"));
            assertThat(tail).isEqualTo("THE END\n");
            assertThat(proc.process().isAlive()).as("no OutOfMemoryError").isTrue();
            assertThat(proc.output()).doesNotContain("OutOfMemoryError");
        }
    }

}
