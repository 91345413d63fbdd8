package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.CrowdSec;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code crowdsec:} over HTTP/2 (curl from 127.0.0.2) and HTTP/3 (Netty's HTTP/3 client from 127.0.0.2), against a
 * real CrowdSec local API ({@link CrowdSec}): served before {@code cscli decisions add}, refused after it, while
 * 127.0.0.1 is still served.
 */
class CrowdSecHttp2And3Test {
    @RegisterExtension
    final Servers servers = new Servers();

    @TempDir
    Path dir;

    /** The HTTP version and status curl got from {@code from} ("2 200"), or curl's failure ("000"). */
    static String http2(String from, int port) {
        Command c = Command.run(30, List.of("curl", "-sk", "--http2", "--max-time", "10", "--interface", from,
                "-o", "/dev/null", "-w", "%{http_version} %{http_code}", "--resolve",
                "app.localhost:" + port + ":127.0.0.1", "https://app.localhost:" + port + "/"));
        return c.output().strip();
    }

    /** The HTTP/3 status a request from {@code from} got, or "refused" when the connection or stream failed. */
    static String http3(String from, int port) {
        try (H3Client client = H3Client.connectFrom(from, port, "app.localhost")) {
            return Integer.toString(client.send("GET", "/", null, "app.localhost").get(10, TimeUnit.SECONDS)
                    .status());
        } catch (Exception refused) {
            return "refused";
        }
    }

    @Test
    void aBanReachesHttp2AndHttp3Clients() throws Exception {
        CrowdSec api = servers.track(CrowdSec.start(dir.resolve("crowdsec")));
        Path key = Files.writeString(dir.resolve("crowdsec.key"), api.addBouncer("usher") + "\n");
        Whoami backend = servers.backend("cs-h2");
        Usher usher = servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                crowdsec: {url: "http://127.0.0.1:%d", key_file: %s, interval: 1s}
                sites:
                  app.localhost: 127.0.0.1:%d
                """.formatted(dir.resolve("data"), api.port(), key, backend.port()), "cs.yaml"), 2));
        int port = usher.httpsAddress().getPort();
        assertThat(http2("127.0.0.2", port)).isEqualTo("2 200");
        assertThat(http3("127.0.0.2", port)).isEqualTo("200");

        api.addDecision("127.0.0.2", "ban");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (http2("127.0.0.2", port).equals("2 200") && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(http2("127.0.0.2", port)).as("HTTP/2 from the banned address").isNotEqualTo("2 200");
        assertThat(http3("127.0.0.2", port)).as("HTTP/3 from the banned address").isIn("403", "refused");
        assertThat(http2("127.0.0.1", port)).isEqualTo("2 200");
        assertThat(http3("127.0.0.1", port)).isEqualTo("200");
    }
}
