package dev.usher.it;

import dev.usher.testing.RawHttp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 1,000 clients that read their 1 MiB answers at 1 byte a second and 1,000 that never read at all, against
 * {@code usher run} as a real process: Usher stops reading from a backend while the client is not taking the
 * answer, so its memory stays bounded (its resident size is measured, not its heap), and a client that does read
 * is still answered meanwhile. Without that backpressure Usher would hold up to 2 GiB of answers. The backend
 * ({@code usher whoami}) is a process of its own too, so that the test's JVM, busy with 2,000 sockets, is not the
 * bottleneck.
 */
class SlowClientsTest {
    static final int EACH = 1_000;
    static final String BODY = "1MiB";
    static Process backend;
    static int backendPort;
    @TempDir
    Path dir;

    @BeforeAll
    static void startBackend() throws Exception {
        backendPort = ReloadingUsher.freePort();
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        backend = new ProcessBuilder(javaBin, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), "dev.usher.Main", "whoami", "--listen",
                "127.0.0.1:" + backendPort, "--name", "slow-clients")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket probe = new Socket("127.0.0.1", backendPort)) {
                return;
            } catch (java.io.IOException notYet) {
                if (System.nanoTime() > deadline || !backend.isAlive()) {
                    throw new AssertionError("usher whoami did not start", notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    @AfterAll
    static void stopBackend() throws InterruptedException {
        backend.destroy();
        backend.waitFor();
    }

    private static Socket askAndHold(int port) throws Exception {
        Socket s = new Socket();
        s.setReceiveBufferSize(4096); // before connecting: the window the client offers stays small
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.getOutputStream().write(("GET /data?size=" + BODY + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    private static long residentKib(Process p) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        throw new AssertionError("no VmRSS for " + p.pid());
    }

    @Test
    void slowAndNonReadingClientsKeepUshersMemoryBoundedAndOthersServed() throws Exception {
        Path config = dir.resolve("usher.yaml");
        Files.writeString(config, """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                timeouts: {idle: 5m}
                sites:
                  127.0.0.1: {to: "127.0.0.1:%d", timeouts: {response: 5m, write: 5m}}
                """.formatted(backendPort));
        try (UsherProcess usher = UsherProcess.start(config, dir.resolve("usher.log"), List.of(),
                "-XX:MaxDirectMemorySize=256m")) {
            long idleKib = residentKib(usher.process());
            List<Socket> clients = new ArrayList<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong slowBytes = new AtomicLong();
            List<Thread> readers = new ArrayList<>();
            try {
                for (int i = 0; i < EACH; i++) {
                    clients.add(askAndHold(usher.port())); // never read
                    Socket slow = askAndHold(usher.port());
                    clients.add(slow);
                    readers.add(Thread.ofVirtual().start(() -> {
                        try {
                            InputStream in = slow.getInputStream();
                            while (!stop.get() && in.read() >= 0) {
                                slowBytes.incrementAndGet();
                                Thread.sleep(1_000);
                            }
                        } catch (Exception e) {
                            // closed at the end
                        }
                    }));
                }
                // Every answer under way and Usher's side of each full: the slow readers got their first bytes.
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
                while (slowBytes.get() < 2L * EACH && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                for (int i = 0; i < 5; i++) {
                    try (RawHttp http = new RawHttp(usher.port())) {
                        http.socket.setSoTimeout(60_000); // served, not starved: no latency is asserted
                        RawHttp.Response r = http.send("GET /data?size=64KiB HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                .read();
                        assertThat(r.status()).isEqualTo(200);
                        assertThat(r.body()).hasSize(64 * 1024);
                    }
                }
                long loadedKib = residentKib(usher.process());
                assertThat(usher.process().isAlive()).isTrue();
                assertThat(slowBytes.get()).as("the slow readers read").isGreaterThanOrEqualTo(2L * EACH);
                assertThat(loadedKib - idleKib).as("Usher's resident memory growth with %d clients holding %s"
                        + " answers (idle: %d KiB)", 2 * EACH, BODY, idleKib).isLessThan(300 * 1024);
            } finally {
                stop.set(true);
                for (Socket s : clients) {
                    s.close();
                }
                for (Thread t : readers) {
                    t.join(5_000);
                }
            }
            assertThat(usher.output()).doesNotContain("OutOfMemoryError");
        }
    }
}
