package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.server.ListenException;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real browser over HTTP/3: Debian's headless Chromium, forced onto QUIC for Usher's origin, loads a page through
 * Usher from a whoami backend, and Usher's access log and metrics say the request came over h3. Chromium's
 * {@code --ignore-certificate-errors} does not cover QUIC, so the local CA certificate's key is pinned with
 * {@code --ignore-certificate-errors-spki-list}. Alt-Svc discovery alone did not switch headless Chromium to QUIC
 * in two page loads, so the Alt-Svc header is tested separately ({@link Http3Test}).
 */
class ChromiumHttp3Test {
    @RegisterExtension
    static final Servers servers = new Servers();

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String SITE = "app.localhost";

    @TempDir
    static Path dir;
    static Whoami backend;
    static Usher usher;
    static Path accessLog;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("browser-backend");
        accessLog = dir.resolve("access.log");
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                access_log: %s
                data: %s
                sites:
                  %s: 127.0.0.1:%d
                """.formatted(accessLog, dir.resolve("data"), SITE, backend.port());
        // The UDP port is the TCP one Usher was given: on the rare chance another process holds it, start again.
        for (int attempt = 1; ; attempt++) {
            try {
                usher = servers.track(Usher.start(ConfigLoader.parse(yaml, "browser.yaml"), 1, Retry.DEFAULT, Duration.ofSeconds(10)));
                break;
            } catch (ListenException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    @Test
    void chromiumLoadsAPageOverHttp3AndUsherServesItAsH3() throws Exception {
        int port = usher.httpsAddress().getPort();
        assertThat(usher.http3Address().getPort()).isEqualTo(port);
        String origin = SITE + ":" + port;
        String dom = loadOverQuic(dir, SITE, port, "/from-chromium");
        assertThat(dom).contains("GET /from-chromium").containsIgnoringCase("X-Forwarded-Proto: https")
                .containsIgnoringCase("Host: " + origin).doesNotContainIgnoringCase("transfer-encoding");

        String line = AccessLogLines.await(accessLog, "/from-chromium");
        System.out.println("Usher's access log line for Chromium's request: " + line);
        assertThat(line).contains("\"protocol\":\"h3\"").contains("\"status\":200")
                .contains("\"upstream\":\"127.0.0.1:" + backend.port() + "\"");
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + usher.adminAddress().getPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).containsPattern("usher_requests_total\\{[^}]*protocol=\"h3\"[^}]*status_class=\"2xx\""
                + "[^}]*\\} [1-9]");
        assertThat(metrics).doesNotContainPattern("usher_requests_total\\{[^}]*protocol=\"h[12]\"");
    }

    /**
     * Loads {@code https://site:port/path} in headless Chromium forced onto QUIC (HTTP/3), trusting the server's own
     * key, and returns the page's DOM. Also used by NativeExecutableIT.
     */
    static String loadOverQuic(Path workDir, String site, int port, String path) throws Exception {
        X509Certificate leaf = TlsProbe.chain(port, site).get(0);
        String spki = Base64.getEncoder().encodeToString(
                MessageDigest.getInstance("SHA-256").digest(leaf.getPublicKey().getEncoded()));
        String origin = site + ":" + port;
        return runChromium(workDir, List.of(CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + Files.createTempDirectory(workDir, "chromium"), "--enable-quic",
                "--origin-to-force-quic-on=" + origin, "--host-resolver-rules=MAP " + site + " 127.0.0.1",
                "--ignore-certificate-errors-spki-list=" + spki, "--dump-dom", "https://" + origin + path));
    }

    /** Runs Chromium with a time limit, and returns what it wrote to standard output (the page's DOM). */
    private static String runChromium(Path workDir, List<String> command) throws Exception {
        Path out = workDir.resolve("chromium.out");
        Path err = workDir.resolve("chromium.err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        try {
            boolean done = process.waitFor(90, TimeUnit.SECONDS);
            assertThat(done).as("Chromium finished within 90 s; stderr: %s", read(err)).isTrue();
            assertThat(process.exitValue()).as("Chromium's exit code; stderr: %s", read(err)).isZero();
            return read(out);
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String read(Path file) throws Exception {
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    }

}
