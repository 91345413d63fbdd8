package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Daemon;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code wait_for_backend:} over HTTP/2 (h2load) and HTTP/3 (Netty's HTTP/3 client), as {@link WaitForBackendTest}
 * does over HTTP/1.1: under load on both sites at once, the backend they share is closed and started again on its
 * port. The site that waits shows no error over either protocol; the one that does not shows the 502s, so the
 * restart really left the port empty while the load ran.
 */
class WaitForBackendHttp2And3Test {
    @RegisterExtension
    final Servers servers = new Servers();

    @TempDir
    Path dir;

    @Test
    void aRestartShorterThanTheWaitShowsNoErrorOverHttp2AndHttp3() throws Exception {
        int port = Daemon.freeTcpPort();
        Whoami first = Whoami.start("127.0.0.1", port, "before");
        Usher usher = servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %1$s
                sites:
                  127.0.0.1: {to: "127.0.0.1:%2$d", wait_for_backend: 10s}
                  waits.localhost: {to: "127.0.0.1:%2$d", wait_for_backend: 10s}
                  fails.localhost: 127.0.0.1:%2$d
                """.formatted(dir.resolve("data"), port), "wait.yaml"), 2));
        int https = usher.httpsAddress().getPort();

        // h2load sends no SNI: its connections get the certificate of the site named by the address, 127.0.0.1.
        Process waits = h2load(https, "127.0.0.1:" + https);
        Process fails = h2load(https, "fails.localhost");
        Map<Integer, AtomicLong> http3 = new ConcurrentHashMap<>();
        AtomicLong http3Failures = new AtomicLong();
        Thread h3 = Thread.ofPlatform().start(() -> http3Load(https, http3, http3Failures));

        Thread.sleep(1500);
        first.close();
        first.awaitClosed();
        Thread.sleep(1500); // the restart: nothing listens on the port
        servers.track(Whoami.start("127.0.0.1", port, "after"));

        String waited = output(waits);
        String failed = output(fails);
        h3.join(20_000);

        assertThat(count(waited, "2xx")).as(waited).isGreaterThan(100);
        assertThat(count(waited, "5xx")).as(waited).isZero();
        assertThat(waited).as(waited).containsPattern("\\d+ succeeded, 0 failed, 0 errored");
        assertThat(count(failed, "5xx")).as("the restart left the port empty: " + failed).isGreaterThan(0);
        assertThat(http3.getOrDefault(200, new AtomicLong()).get()).as("HTTP/3 answers: " + http3).isGreaterThan(20);
        assertThat(http3.keySet()).as("HTTP/3 answers: " + http3).containsOnly(200);
        assertThat(http3Failures.get()).isZero();
    }

    /** h2load for 6 s, two connections of two streams each, naming {@code host}. */
    private static Process h2load(int port, String host) throws Exception {
        return new ProcessBuilder("h2load", "-D", "6", "-c", "2", "-m", "2", "-H", ":authority: " + host,
                "https://127.0.0.1:" + port + "/").redirectErrorStream(true).start();
    }

    private static String output(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** h2load's count of answers in a status class ("status codes: 10 2xx, 0 3xx, 0 4xx, 2 5xx"). */
    static long count(String h2loadOutput, String statusClass) {
        Matcher m = Pattern.compile("(\\d+) " + statusClass).matcher(h2loadOutput);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** One HTTP/3 connection sending request after request to the waiting site for 6 s, counting statuses. */
    private static void http3Load(int port, Map<Integer, AtomicLong> statuses, AtomicLong failures) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
        try (H3Client client = H3Client.connect(port, "waits.localhost")) {
            while (System.nanoTime() < end) {
                H3Client.Response r = client.send("GET", "/", null, "waits.localhost").get(15, TimeUnit.SECONDS);
                statuses.computeIfAbsent(r.status(), s -> new AtomicLong()).incrementAndGet();
            }
        } catch (Exception e) {
            failures.incrementAndGet();
        }
    }
}
