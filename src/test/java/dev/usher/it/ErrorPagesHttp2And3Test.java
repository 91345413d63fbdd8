package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Daemon;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The error pages of {@link ErrorPagesTest} over HTTP/2 (curl) and HTTP/3 (Netty's HTTP/3 client): Usher's own 502
 * for a backend that is down, a backend's 503 replaced with {@code intercept: true}, and the maintenance page.
 */
class ErrorPagesHttp2And3Test {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Usher usher;

    @BeforeAll
    static void start() throws Exception {
        Whoami backend = servers.backend("pages-h2");
        Path pages = Files.createDirectories(dir.resolve("pages"));
        Files.writeString(pages.resolve("502.html"), "<h1>the app is restarting</h1>\n");
        Files.writeString(pages.resolve("5xx.html"), "<h1>something broke</h1>\n");
        usher = servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %1$s/data
                error_pages: {502: %1$s/pages/502.html, 5xx: %1$s/pages/5xx.html}
                sites:
                  down.localhost: 127.0.0.1:%2$d
                  intercept.localhost: {to: "127.0.0.1:%3$d", error_pages: {intercept: true}}
                  closed.localhost: {to: "127.0.0.1:%3$d", maintenance: true}
                """.formatted(dir, Daemon.freeTcpPort(), backend.port()), "pages.yaml"), 2));
    }

    static int port() {
        return usher.httpsAddress().getPort();
    }

    /** The status code, then the body, of a GET over HTTP/2 with curl. */
    static List<String> http2(String host, String path) {
        Command c = Command.run(30, List.of("curl", "-sk", "--http2", "--max-time", "20", "-w",
                "\n%{http_version} %{http_code}",
                "--resolve", host + ":" + port() + ":127.0.0.1", "https://" + host + ":" + port() + path));
        String out = c.output();
        int last = out.lastIndexOf('\n');
        return List.of(out.substring(last + 1), out.substring(0, last));
    }

    @Test
    void pagesOverHttp2() {
        assertThat(http2("down.localhost", "/")).containsExactly("2 502", "<h1>the app is restarting</h1>\n");
        assertThat(http2("intercept.localhost", "/status/503")).containsExactly("2 503", "<h1>something broke</h1>\n");
        assertThat(http2("intercept.localhost", "/").get(0)).isEqualTo("2 200");
        assertThat(http2("closed.localhost", "/").get(0)).isEqualTo("2 503");
    }

    @Test
    void pagesOverHttp3() throws Exception {
        for (String[] c : new String[][] {{"down.localhost", "/", "502", "<h1>the app is restarting</h1>"},
                {"intercept.localhost", "/status/503", "503", "<h1>something broke</h1>"}}) {
            try (H3Client client = H3Client.connect(port(), c[0])) {
                H3Client.Response r = client.send("GET", c[1], null, c[0]).get(20, TimeUnit.SECONDS);
                assertThat(r.status()).as(c[0]).isEqualTo(Integer.parseInt(c[2]));
                assertThat(r.bodyStart()).as(c[0]).startsWith(c[3]);
            }
        }
    }
}
