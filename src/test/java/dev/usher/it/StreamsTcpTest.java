package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.testing.Daemon;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TCP streams against real peers: socat echo servers (Debian's), a socat {@code wc -c} backend for
 * half-close, many concurrent streams with every byte checked, a 1 GiB transfer to a slow reader with Usher's
 * buffer memory watched, retries to the next backend, allow/deny and the connection limit, the access log line.
 */
class StreamsTcpTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;

    /** socat: one process per connection, each echoing what it reads ({@code PIPE}); takes the 1,000 streams. */
    static int socatEcho;
    /**
     * socat running {@code cat} per connection: writes back all it read however slowly the client takes it (socat's
     * PIPE stalls once a slow reader's backlog fills its pipe; ncat {@code -e /bin/cat} loses bytes: both were tried).
     */
    static int catEcho;
    /** socat running {@code wc -c}: answers only once the client's FIN reached it. */
    static int countBackend;

    @BeforeAll
    static void peers() {
        socatEcho = Daemon.freeTcpPort();
        servers.track(Daemon.tcpEcho(socatEcho));
        catEcho = Daemon.freeTcpPort();
        servers.track(Daemon.start(List.of("socat", "-t", "30", "TCP4-LISTEN:" + catEcho
                + ",bind=127.0.0.1,reuseaddr,fork", "EXEC:cat"))).awaitTcp(catEcho);
        countBackend = Daemon.freeTcpPort();
        servers.track(Daemon.start(List.of("socat", "TCP4-LISTEN:" + countBackend
                + ",bind=127.0.0.1,reuseaddr,fork", "EXEC:wc -c"))).awaitTcp(countBackend);
    }

    @Test
    void relaysBothWaysAndLogsTheConnection() throws Exception {
        Path log = dir.resolve("relay.log");
        int port = Daemon.freeTcpPort();
        servers.usher("access_log: " + log + "\nstreams:\n  \"127.0.0.1:" + port + "\": 127.0.0.1:" + socatEcho
                + "\n");
        byte[] sent = pattern(1 << 20, 7);
        try (Socket s = connect(port)) {
            Future<byte[]> echo = readAll(s.getInputStream(), sent.length);
            s.getOutputStream().write(sent);
            s.getOutputStream().flush();
            assertThat(echo.get(20, TimeUnit.SECONDS)).isEqualTo(sent);
        }
        String line = AccessLogLines.awaitContaining(log, "\"stream\":\"127.0.0.1:" + port + "\"");
        assertThat(line).contains("\"kind\":\"tcp\"", "\"client\":\"127.0.0.1\"", "\"upstream\":\"127.0.0.1:"
                + socatEcho + "\"", "\"bytes_in\":1048576", "\"bytes_out\":1048576", "\"ending\":\"client_closed\"");
    }

    @Test
    void passesHalfCloseThrough() throws Exception {
        int port = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": 127.0.0.1:" + countBackend + "\n");
        try (Socket s = connect(port)) {
            s.getOutputStream().write(pattern(100_000, 3));
            s.shutdownOutput(); // wc only answers once it sees the end of its input
            byte[] answer = s.getInputStream().readAllBytes(); // ...and then the backend's FIN comes back as EOF
            assertThat(new String(answer, StandardCharsets.US_ASCII).strip()).isEqualTo("100000");
        }
    }

    @Test
    void thousandConcurrentStreamsCarryEveryByte() throws Exception {
        int port = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": {to: 127.0.0.1:" + socatEcho
                + ", max_connections: 2000}\n");
        int streams = 1000;
        int size = 32 * 1024;
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                int seed = i;
                results.add(clients.submit(() -> {
                    byte[] sent = pattern(size, seed);
                    try (Socket s = connect(port)) {
                        s.setSoTimeout(60_000);
                        Future<byte[]> echo = readAll(s.getInputStream(), size);
                        OutputStream out = s.getOutputStream();
                        for (int off = 0; off < size; off += 4096) {
                            out.write(sent, off, 4096);
                        }
                        out.flush();
                        return java.util.Arrays.equals(echo.get(90, TimeUnit.SECONDS), sent);
                    }
                }));
            }
            int good = 0;
            for (Future<Boolean> r : results) {
                good += r.get(120, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(good).isEqualTo(streams);
        }
    }

    @Test
    void gigabyteToASlowReaderInBoundedMemory() throws Exception {
        int port = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": 127.0.0.1:" + catEcho + "\n");
        long total = 1L << 30;
        AtomicLong maxDirect = new AtomicLong();
        try (Socket s = connect(port)) {
            s.setReceiveBufferSize(64 * 1024);
            s.setSoTimeout(30_000); // a stalled relay fails the test instead of hanging it
            Thread writer = Thread.ofPlatform().start(() -> {
                byte[] chunk = pattern(64 * 1024, 11);
                try {
                    OutputStream out = s.getOutputStream();
                    for (long sent = 0; sent < total; sent += chunk.length) {
                        out.write(chunk);
                    }
                    // No FIN: the reader counts the bytes. (Under load socat EXEC:cat, like ncat -e, sometimes
                    // loses the tail after its child exits on EOF; half-close has its own test, with wc -c.)
                } catch (IOException e) {
                    // the reader's assertion tells
                }
            });
            byte[] expected = pattern(64 * 1024, 11);
            byte[] buf = new byte[64 * 1024];
            InputStream in = s.getInputStream();
            long received = 0;
            long mismatches = 0;
            long nextPause = 0;
            int pos = 0;
            while (received < total) {
                // Slow for the first 64 MiB: the echo backend, and behind it the writer, must be held back.
                if (received < (64L << 20) && received >= nextPause) {
                    Thread.sleep(100);
                    nextPause += 4L << 20;
                    maxDirect.accumulateAndGet(nettyMemory(), Math::max);
                }
                int n = in.read(buf, 0, (int) Math.min(buf.length, total - received));
                if (n < 0) {
                    break;
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] != expected[pos]) {
                        mismatches++;
                    }
                    pos = (pos + 1) % expected.length;
                }
                received += n;
            }
            writer.join(60_000);
            assertThat(received).isEqualTo(total);
            assertThat(mismatches).isZero();
        }
        // What Netty's allocator holds for the relay stays a few socket buffers' worth, not the backlog.
        assertThat(maxDirect.get()).isLessThan(32L << 20);
    }

    @Test
    void triesTheNextBackendWhenAConnectFailsAndClosesWhenNoneAnswers() throws Exception {
        int dead = Daemon.freeTcpPort();
        int port = Daemon.freeTcpPort();
        int allDead = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": {to: [127.0.0.1:" + dead + ", 127.0.0.1:"
                + socatEcho + "], policy: first}\n  \"127.0.0.1:" + allDead + "\": [127.0.0.1:" + dead + "]\n");
        for (int i = 0; i < 3; i++) {
            try (Socket s = connect(port)) {
                s.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(s.getInputStream().readNBytes(5), StandardCharsets.US_ASCII))
                        .isEqualTo("ping\n");
            }
        }
        try (Socket s = connect(allDead)) {
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
    }

    @Test
    void refusesDeniedClientsAndConnectionsOverTheLimit() throws Exception {
        int denied = Daemon.freeTcpPort();
        int limited = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + denied + "\": {to: 127.0.0.1:" + socatEcho
                + ", deny: 127.0.0.1}\n  \"127.0.0.1:" + limited + "\": {to: 127.0.0.1:" + socatEcho
                + ", max_connections: 2}\n");
        try (Socket s = connect(denied)) {
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
        try (Socket a = connect(limited); Socket b = connect(limited)) {
            for (Socket s : List.of(a, b)) {
                s.getOutputStream().write('x');
                assertThat(s.getInputStream().read()).isEqualTo('x');
            }
            try (Socket c = connect(limited)) {
                c.setSoTimeout(10_000);
                assertThat(c.getInputStream().read()).isEqualTo(-1);
            }
        }
    }

    @Test
    void closesAConnectionIdleForTheTimeout() throws Exception {
        int port = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": {to: 127.0.0.1:" + socatEcho
                + ", timeouts: {idle: 500ms}}\n");
        try (Socket s = connect(port)) {
            s.getOutputStream().write('x');
            assertThat(s.getInputStream().read()).isEqualTo('x');
            s.setSoTimeout(10_000);
            long start = System.nanoTime();
            assertThat(s.getInputStream().read()).isEqualTo(-1);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(300));
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the idle connection was not closed", e);
        }
    }

    @Test
    void healthChecksTakeADeadBackendOutAndBackInAndMetricsCountTheStream() throws Exception {
        int late = Daemon.freeTcpPort();
        int port = Daemon.freeTcpPort();
        RunningUsher usher = servers.usher("admin: 127.0.0.1:0\nstreams:\n  \"127.0.0.1:" + port + "\": {to: [127.0.0.1:"
                + socatEcho + ", 127.0.0.1:" + late + "], health: {interval: 1s, timeout: 500ms}}\n");
        String up = "usher_upstream_up{relay=\"stream 127.0.0.1:" + port + "\",backend=\"127.0.0.1:";
        awaitMetric(usher, up + late + "\"} 0");
        assertThat(scrape(usher)).contains(up + socatEcho + "\"} 1");
        // The admin API (the UI's Streams page) lists the stream with the same verdicts.
        try (RawHttp raw = new RawHttp(usher.usher.adminAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /api/streams HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body().strip()).isEqualTo("{\"streams\":[{\"name\":\"127.0.0.1:" + port + "\",\"protocol\":\"tcp\","
                    + "\"max_connections\":10000,\"idle_timeout_seconds\":600,\"routes\":[{\"sni\":null,"
                    + "\"proxy_protocol\":\"off\",\"backends\":[{\"address\":\"127.0.0.1:" + socatEcho + "\",\"up\":true},"
                    + "{\"address\":\"127.0.0.1:" + late + "\",\"up\":false}]}]}],\"passthrough\":[]}");
        }
        try (Socket s = connect(port)) {
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertThat(s.getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(StandardCharsets.US_ASCII));
        }
        String stream = "stream=\"127.0.0.1:" + port + "\"";
        awaitMetric(usher, "usher_stream_connections_total{" + stream + ",kind=\"tcp\",ending=\"client_closed\"} 1");
        assertThat(scrape(usher)).contains("usher_stream_bytes_total{" + stream + ",direction=\"in\"} 4",
                "usher_stream_bytes_total{" + stream + ",direction=\"out\"} 4", "usher_stream_open{" + stream + "} 0");
        // The backend comes up: the next checks put it back.
        servers.track(Daemon.tcpEcho(late));
        awaitMetric(usher, up + late + "\"} 1");
    }

    static String scrape(RunningUsher usher) throws IOException {
        try (RawHttp raw = new RawHttp(usher.usher.adminAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            return r.body();
        }
    }

    static void awaitMetric(RunningUsher usher, String sample) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        String text = "";
        while (System.nanoTime() < deadline) {
            text = scrape(usher);
            if (text.contains(sample)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no " + sample + " in\n" + text);
    }

    static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return s;
    }

    /** Reads exactly {@code n} bytes on a virtual thread. */
    static Future<byte[]> readAll(InputStream in, int n) {
        java.util.concurrent.CompletableFuture<byte[]> result = new java.util.concurrent.CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                result.complete(in.readNBytes(n));
            } catch (IOException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Bytes that differ per seed and per position, so that a swapped, lost or repeated chunk shows. */
    static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        long x = 0x9E3779B97F4A7C15L * (seed + 1);
        for (int i = 0; i < size; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }

    /** Direct and heap memory Netty's pooled allocator has handed out (what relays buffer), in bytes. */
    static long nettyMemory() {
        PooledByteBufAllocator pooled = PooledByteBufAllocator.DEFAULT;
        long used = pooled.metric().usedDirectMemory() + pooled.metric().usedHeapMemory();
        return Math.max(used, PlatformDependent.usedDirectMemory());
    }
}
