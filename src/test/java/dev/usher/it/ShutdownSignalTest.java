package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code usher run} as a real process, stopped with real signals ({@code Process.destroy()} sends SIGTERM): the
 * first signal lets the request in flight finish and exits 0, a second one exits at once (143), and a request still
 * running when the grace period ends is cut.
 */
class ShutdownSignalTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    @TempDir
    Path dir;

    @BeforeAll
    static void startBackend() throws Exception {
        backend = servers.backend("signals");
    }

    /** A running {@code usher run} process; what it prints goes to {@code log}. */
    record Running(Process process, int port, Path log) {
        String output() throws IOException {
            return Files.readString(log);
        }

        /** Waits until a line containing {@code text} was printed; returns that line. */
        String awaitLine(String text) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                for (String line : output().split("\n")) {
                    if (line.contains(text)) {
                        return line;
                    }
                }
                Thread.sleep(20);
            }
            throw new AssertionError("no line with \"" + text + "\" in:\n" + output());
        }
    }

    /** Waits until the backend has seen a request beyond {@code seen}: the request is then in flight. */
    private static void awaitBackendRequest(long seen) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (backend.requestsSeen() == seen && System.nanoTime() < until) {
            Thread.sleep(10);
        }
    }

    private Running start(String grace) throws Exception {
        Path config = dir.resolve("usher.yaml");
        Files.writeString(config, """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                timeouts: {shutdown: %s}
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(grace, backend.port()));
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = dir.resolve("usher.log");
        Process p = new ProcessBuilder(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "dev.usher.Main", "run", "--config", config.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Running running = new Running(p, 0, log);
        Matcher m = Pattern.compile("listening on http://[^ ]*:(\\d+) ").matcher(running.awaitLine("listening on"));
        assertThat(m.find()).isTrue();
        return new Running(p, Integer.parseInt(m.group(1)), log);
    }

    private static CompletableFuture<RawHttp.Response> request(int port, String path) throws Exception {
        RawHttp client = new RawHttp(port);
        client.socket.setSoTimeout(40_000);
        client.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        CompletableFuture<RawHttp.Response> answer = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (client) {
                answer.complete(client.read());
            } catch (Exception e) {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    @Test
    void sigtermDuringASlowRequestLetsItFinishRefusesNewConnectionsAndExitsZero() throws Exception {
        Running usher = start("10s");
        try {
            long seen = backend.requestsSeen();
            CompletableFuture<RawHttp.Response> slow = request(usher.port(), "/?wait=2s");
            awaitBackendRequest(seen);
            long signalled = System.nanoTime();
            usher.process().destroy(); // SIGTERM
            assertThat(usher.awaitLine("stopping:"))
                    .endsWith("stopping: 1 connections, 1 requests in flight, grace 10 s");
            assertThatThrownBy(() -> new Socket("127.0.0.1", usher.port()).close())
                    .isInstanceOf(ConnectException.class);
            RawHttp.Response answer = slow.get(10, TimeUnit.SECONDS);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.header("connection")).isEqualToIgnoringCase("close");
            assertThat(usher.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(usher.process().exitValue()).isZero();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled))
                    .as("exits once the request is answered, well within the grace period").isLessThan(5000);
        } finally {
            usher.process().destroyForcibly();
        }
    }

    @Test
    void aSecondSigtermExitsAtOnce() throws Exception {
        Running usher = start("10s");
        try {
            long seen = backend.requestsSeen();
            CompletableFuture<RawHttp.Response> slow = request(usher.port(), "/?wait=30s");
            awaitBackendRequest(seen);
            usher.process().destroy();
            usher.awaitLine("stopping:");
            long second = System.nanoTime();
            usher.process().destroy();
            assertThat(usher.process().waitFor(5, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - second))
                    .as("well before the 10 s grace").isLessThan(5000);
            assertThat(usher.process().exitValue()).as("128 + SIGTERM").isEqualTo(143);
            assertThat(slow.get(5, TimeUnit.SECONDS)).as("cut, no answer").isNull();
        } finally {
            usher.process().destroyForcibly();
        }
    }

    @Test
    void aRequestStillRunningAfterTheGracePeriodIsCutAndTheProcessExits() throws Exception {
        Running usher = start("1s");
        try {
            long seen = backend.requestsSeen();
            CompletableFuture<RawHttp.Response> slow = request(usher.port(), "/?wait=30s");
            awaitBackendRequest(seen);
            long signalled = System.nanoTime();
            usher.process().destroy();
            assertThat(usher.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - signalled)).isBetween(900L, 9000L);
            assertThat(usher.process().exitValue()).isZero();
            assertThat(slow.get(5, TimeUnit.SECONDS)).as("cut, no answer").isNull();
            assertThat(usher.output()).contains("grace period over: cutting 1 connection(s)");
        } finally {
            usher.process().destroyForcibly();
        }
    }
}
