package dev.usher.it;

import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/2 over TLS through Usher with real clients (curl, nghttp, h2load, Java's HttpClient): every stream is routed
 * and proxied like an HTTP/1.1 request, with streaming, multiplexing, trailers, cancels and per-stream errors.
 */
class Http2Test {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static TrailerBackend trailers;
    static int deadPort;
    static TlsTestServer usher;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("h2back");
        trailers = servers.track(TrailerBackend.start());
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        usher = servers.track(TlsTestServer.start("""
                sites:
                  app.test: 127.0.0.1:%1$d
                  localhost: 127.0.0.1:%1$d
                  trailers.test: 127.0.0.1:%2$d
                  down.test: 127.0.0.1:%3$d
                """.formatted(backend.port(), trailers.port(), deadPort)));
    }

    static String base(String host) {
        return "https://" + host + ":" + usher.port();
    }

    static List<String> curl(String host, String... args) {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sk", "--max-time", "30", "--resolve",
                host + ":" + usher.port() + ":127.0.0.1"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void curlSpeaksHttp2AndGetsTheBackendsAnswer() throws Exception {
        String out = Processes.run(curl("app.test", "--http2", "-D", "-", "-w", "\nversion=%{http_version}\n",
                base("app.test") + "/"));
        assertThat(out).startsWith("HTTP/2 200").contains("version=2").containsIgnoringCase("x-whoami: h2back");
        assertThat(out).containsIgnoringCase("X-Forwarded-Proto: https")
                .containsIgnoringCase("Host: app.test:" + usher.port());
        assertThat(out).doesNotContainIgnoringCase("x-http2-");
    }

    @Test
    void nghttpGetsA200() throws Exception {
        String out = Processes.run(List.of("nghttp", "-nv", "-H", ":authority: app.test",
                "https://127.0.0.1:" + usher.port() + "/"));
        assertThat(out).contains(":status: 200").contains("x-whoami: h2back");
        assertThat(out).doesNotContain("connection:").doesNotContain("transfer-encoding:")
                .doesNotContain("keep-alive:");
    }

    @Test
    void javaClientGetsAndStreamsTwentyMebibytesBothWays() throws Exception {
        HttpClient client = trustingClient();
        HttpResponse<String> get = client.send(HttpRequest.newBuilder(URI.create(base("localhost") + "/"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).containsIgnoringCase("X-Forwarded-Proto: https");

        byte[] body = new byte[20 * 1024 * 1024];
        new SecureRandom().nextBytes(body);
        HttpResponse<InputStream> echo = client.send(HttpRequest.newBuilder(URI.create(base("localhost") + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(echo.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(echo.statusCode()).isEqualTo(200);
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        long total = 0;
        try (InputStream in = echo.body()) {
            byte[] buf = new byte[64 * 1024];
            for (int n; (n = in.read(buf)) > 0; ) {
                digest.update(buf, 0, n);
                total += n;
            }
        }
        assertThat(total).isEqualTo(body.length);
        assertThat(HexFormat.of().formatHex(digest.digest())).isEqualTo(sha(body));
    }

    @Test
    void twoHundredConcurrentStreamsOnOneConnection() throws Exception {
        String out = Processes.run(List.of("h2load", "-n", "2000", "-c", "1", "-m", "200", "-H",
                ":authority: app.test", "https://127.0.0.1:" + usher.port() + "/"));
        assertThat(out).contains("2000 succeeded, 0 failed, 0 errored").contains("status codes: 2000 2xx");
    }

    @Test
    void manyStreamsOnTenConnectionsReuseBackendConnections() throws Exception {
        long acceptedBefore = backend.acceptedConnections();
        String out = Processes.run(List.of("h2load", "-n", "20000", "-c", "10", "-m", "10", "-H",
                ":authority: app.test", "https://127.0.0.1:" + usher.port() + "/"));
        assertThat(out).contains("20000 succeeded, 0 failed, 0 errored").contains("status codes: 20000 2xx");
        // At most 100 requests are in flight at once: backend connections are reused, not opened per request.
        assertThat(backend.acceptedConnections() - acceptedBefore).isLessThanOrEqualTo(200);
        assertThat(backend.openConnections()).isLessThanOrEqualTo(2 * 64);
    }

    @Test
    void trailersFromTheBackendReachTheClient() throws Exception {
        String out = Processes.run(List.of("nghttp", "-v", "-H", ":authority: trailers.test",
                "https://127.0.0.1:" + usher.port() + "/"));
        assertThat(out).contains(":status: 200").contains("hello trailers");
        // the trailer arrives in a HEADERS frame of its own, after the body, ending the stream
        int body = out.indexOf("hello trailers");
        int trailer = out.indexOf("x-checksum: c0ffee");
        assertThat(trailer).isGreaterThan(body);
        assertThat(out.substring(trailer)).contains("END_STREAM");
    }

    @Test
    void cancelledDownloadLeavesTheConnectionUsableAndNoHalfReadBackend() throws Exception {
        try (Whoami big = Whoami.start("127.0.0.1", 0, "big");
             TlsTestServer server = TlsTestServer.start("sites:\n  localhost: 127.0.0.1:" + big.port() + "\n")) {
            HttpClient client = trustingClient();
            URI data = URI.create("https://localhost:" + server.port() + "/data?size=100MiB");
            HttpResponse<InputStream> download = client.send(HttpRequest.newBuilder(data).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(download.statusCode()).isEqualTo(200);
            try (InputStream in = download.body()) {
                in.readNBytes(1024 * 1024); // then close: the client resets the stream (RST_STREAM CANCEL)
            }
            // The backend connection of the cancelled exchange is closed, not pooled half-read.
            awaitTrue(() -> big.openConnections() == 0, 10_000);
            HttpResponse<byte[]> next = client.send(HttpRequest.newBuilder(
                    URI.create("https://localhost:" + server.port() + "/data?size=1000")).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertThat(next.statusCode()).isEqualTo(200);
            assertThat(next.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(next.body()).hasSize(1000);
            for (int i = 0; i < 1000; i++) {
                assertThat(next.body()[i]).isEqualTo((byte) i);
            }
            assertThat(big.acceptedConnections()).isEqualTo(2);
        }
    }

    @Test
    void unknownHostGets404AndDeadBackend502OnTheirStreams() throws Exception {
        String unknown = Processes.run(curl("nosuch.test", "--http2", "-o", "/dev/null", "-w",
                "%{http_code} %{http_version}", base("nosuch.test") + "/"));
        assertThat(unknown).isEqualTo("404 2");
        String down = Processes.run(curl("down.test", "--http2", "-o", "/dev/null", "-w",
                "%{http_code} %{http_version}", base("down.test") + "/"));
        assertThat(down).isEqualTo("502 2");
    }

    @Test
    void responsesAreGzippedOverHttp2() throws Exception {
        byte[] text = CompressionTest.text(256 * 1024);
        Path in = dir.resolve("in.txt");
        Path out = dir.resolve("out.gz");
        Files.write(in, text);
        String headers = Processes.run(curl("app.test", "--http2", "-D", "-", "-o", out.toString(),
                "-H", "Content-Type: text/plain", "-H", "Accept-Encoding: gzip", "--data-binary", "@" + in,
                base("app.test") + "/echo"));
        assertThat(headers).startsWith("HTTP/2 200").containsIgnoringCase("content-encoding: gzip")
                .doesNotContainIgnoringCase("transfer-encoding");
        byte[] compressed = Files.readAllBytes(out);
        assertThat(compressed.length).isLessThan(text.length / 4);
        try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            assertThat(gz.readAllBytes()).isEqualTo(text);
        }
    }

    @Test
    void http11OverTlsStillWorksWithForwardedProtoHttps() throws Exception {
        String out = Processes.run(curl("app.test", "--http1.1", "-D", "-", base("app.test") + "/"));
        assertThat(out).startsWith("HTTP/1.1 200").containsIgnoringCase("X-Forwarded-Proto: https");
    }

    // ---------------------------------------------------------------- helpers

    static HttpClient trustingClient() throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, new TrustManager[]{new X509TrustManager() {
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, new SecureRandom());
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    static void awaitTrue(java.util.function.BooleanSupplier condition, long millis) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            assertThat(System.currentTimeMillis()).as("condition not met in time").isLessThan(end);
            Thread.sleep(20);
        }
    }

    static String sha(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
