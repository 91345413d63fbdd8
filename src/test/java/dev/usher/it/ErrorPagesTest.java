package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code error_pages:} (global and per site, by status and by class, {@code intercept}) and {@code maintenance:}
 * (always on with allowed networks, and a flag file a deploy script touches), through real sockets.
 */
class ErrorPagesTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Whoami backend;
    static RunningUsher usher;
    static Path flag;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("pages");
        Path pages = Files.createDirectories(dir.resolve("pages"));
        Files.writeString(pages.resolve("404.html"), "<h1>no such site</h1>\n");
        Files.writeString(pages.resolve("502.html"), "<h1>the app is restarting</h1>\n");
        Files.writeString(pages.resolve("5xx.html"), "<h1>something broke</h1>\n");
        Files.writeString(pages.resolve("site-5xx.txt"), "site page\n");
        Files.writeString(pages.resolve("maintenance.html"), "<h1>back soon</h1>\n");
        flag = dir.resolve("MAINTENANCE");
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        usher = servers.usher("""
                error_pages: {404: %1$s/404.html, 502: %1$s/502.html, 5xx: %1$s/5xx.html}
                sites:
                  down.example.com: 127.0.0.1:%2$d
                  own.example.com: {to: "127.0.0.1:%2$d", error_pages: {5xx: %1$s/site-5xx.txt}}
                  plain.example.com: 127.0.0.1:%3$d
                  intercept.example.com: {to: "127.0.0.1:%3$d", error_pages: {intercept: true}}
                  maintenance.example.com:
                    to: 127.0.0.1:%3$d
                    maintenance: {allow: [127.0.0.2], retry_after: 2m, page: %1$s/maintenance.html}
                  deploy.example.com: {to: "127.0.0.1:%3$d", maintenance: %4$s}
                """.formatted(pages, dead, backend.port(), flag));
    }

    static RawHttp.Response get(String host, String path) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    @Test
    void usherOwnAnswersUseTheConfiguredPages() throws Exception {
        RawHttp.Response unknown = get("nobody.example.com", "/");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("<h1>no such site</h1>\n");
        assertThat(unknown.header("content-type")).startsWith("text/html");
        RawHttp.Response down = get("down.example.com", "/");
        assertThat(down.status()).isEqualTo(502);
        assertThat(down.body()).isEqualTo("<h1>the app is restarting</h1>\n");
        RawHttp.Response own = get("own.example.com", "/");
        assertThat(own.status()).isEqualTo(502);
        assertThat(own.body()).as("the site's class page wins over the global status page")
                .isEqualTo("site page\n");
        assertThat(own.header("content-type")).startsWith("text/plain");
    }

    @Test
    void aBackendsOwn5xxIsReplacedOnlyWithIntercept() throws Exception {
        RawHttp.Response passed = get("plain.example.com", "/status/503");
        assertThat(passed.status()).isEqualTo(503);
        assertThat(passed.body()).doesNotContain("something broke");
        RawHttp.Response intercepted = get("intercept.example.com", "/status/503");
        assertThat(intercepted.status()).isEqualTo(503);
        assertThat(intercepted.body()).isEqualTo("<h1>something broke</h1>\n");
        assertThat(get("intercept.example.com", "/status/404").body()).as("only 5xx are intercepted")
                .doesNotContain("no such site");
        assertThat(get("intercept.example.com", "/").status()).isEqualTo(200);
    }

    @Test
    void maintenanceAnswers503WithRetryAfterExceptForAllowedAddresses() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response r = get("maintenance.example.com", "/");
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("retry-after")).isEqualTo("120");
        assertThat(r.body()).isEqualTo("<h1>back soon</h1>\n");
        assertThat(backend.requestsSeen()).isEqualTo(before);
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(new InetSocketAddress("127.0.0.1", usher.port()));
            s.setSoTimeout(5000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: maintenance.example.com\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(WebsocketTest.readHead(s.getInputStream())).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void aFlagFileTurnsMaintenanceOnAndOff() throws Exception {
        assertThat(get("deploy.example.com", "/").status()).isEqualTo(200);
        Files.writeString(flag, "");
        try {
            assertThat(awaitStatus("deploy.example.com", 503)).isTrue();
            RawHttp.Response r = get("deploy.example.com", "/");
            assertThat(r.header("retry-after")).isEqualTo("300");
            assertThat(r.body()).as("the global 5xx page").isEqualTo("<h1>something broke</h1>\n");
        } finally {
            Files.delete(flag);
        }
        assertThat(awaitStatus("deploy.example.com", 200)).isTrue();
    }

    /** True once the site answers {@code status} (within 5 s; the flag file is looked at once a second). */
    static boolean awaitStatus(String host, int status) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (get(host, "/").status() == status) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }
}
