package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code wait_for_backend:} riding out a backend restart (what {@code compose pull && up} does to an app): the
 * backend is closed and started again on its port under {@code hey}'s load, and not one visitor sees an error; a
 * site without it shows the 502s; a backend that stays down gets the error once the wait is over.
 */
class WaitForBackendTest {
    @RegisterExtension
    final Servers servers = new Servers();

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Runs hey for {@code seconds} against {@code host} while the backend on {@code port} restarts. */
    private String loadAcrossRestart(RunningUsher usher, String host, int port, Whoami first) throws Exception {
        Process hey = new ProcessBuilder("hey", "-z", "6s", "-c", "8", "-host", host,
                "http://127.0.0.1:" + usher.port() + "/").redirectErrorStream(true).start();
        Thread.sleep(1500);
        first.close();
        first.awaitClosed();
        Thread.sleep(1500); // the restart: nothing listens on the port
        servers.track(Whoami.start("127.0.0.1", port, "after"));
        String out = new String(hey.getInputStream().readAllBytes());
        hey.waitFor();
        return out;
    }

    /** hey's count of answers with {@code status}. */
    static long count(String heyOutput, int status) {
        Matcher m = Pattern.compile("\\[" + status + "]\\s+(\\d+) responses").matcher(heyOutput);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void aRestartShorterThanTheWaitShowsNoErrorUnderLoad() throws Exception {
        int port = freePort();
        Whoami first = Whoami.start("127.0.0.1", port, "before");
        RunningUsher usher = servers.usher("""
                sites:
                  app.example.com: {to: "127.0.0.1:%d", wait_for_backend: 10s}
                """.formatted(port));
        String out = loadAcrossRestart(usher, "app.example.com", port, first);
        assertThat(count(out, 200)).as(out).isGreaterThan(100);
        assertThat(out).as("only 200s").doesNotContainPattern("\\[[1345]\\d\\d]\\s+\\d+ responses")
                .doesNotContain("Error distribution");
    }

    @Test
    void withoutItTheSameRestartShowsErrors() throws Exception {
        int port = freePort();
        Whoami first = Whoami.start("127.0.0.1", port, "before");
        RunningUsher usher = servers.usher("""
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(port));
        String out = loadAcrossRestart(usher, "app.example.com", port, first);
        assertThat(count(out, 502)).as(out).isGreaterThan(0);
    }

    @Test
    void aBackendThatStaysDownGetsTheErrorOnceTheWaitIsOver() throws Exception {
        int port = freePort();
        RunningUsher usher = servers.usher("""
                sites:
                  app.example.com: {to: "127.0.0.1:%d", wait_for_backend: 1s}
                  few.example.com: {to: "127.0.0.1:%d", wait_for_backend: {for: 3s, max_requests: 1}}
                """.formatted(port, port));
        long start = System.nanoTime();
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
        }
        long waitedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(waitedMs).as("it waited before giving up").isGreaterThanOrEqualTo(900);
        // One place to wait: a second request while the first waits gets its 502 at once.
        try (RawHttp waiting = new RawHttp(usher.port()); RawHttp second = new RawHttp(usher.port())) {
            waiting.send("GET / HTTP/1.1\r\nHost: few.example.com\r\n\r\n");
            Thread.sleep(300);
            long t = System.nanoTime();
            RawHttp.Response r = second.send("GET / HTTP/1.1\r\nHost: few.example.com\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat((System.nanoTime() - t) / 1_000_000).as("no place left to wait").isLessThan(2000);
            assertThat(waiting.read().status()).isEqualTo(502);
        }
    }
}
