package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.config.ConfigLoader;
import dev.usher.reload.ReloadResult;
import dev.usher.testing.Daemon;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.DatagramSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hot reload of streams while they carry traffic: a reload that keeps one TCP stream (with a changed setting),
 * removes another, adds a third and keeps a UDP stream. Every byte on the connections open across the reload is
 * checked; the kept UDP client keeps its session; the removed port stops accepting; the added one serves.
 * Backends are socat echo servers (Debian's).
 */
class StreamsReloadTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static int echo;
    static int udpEcho;

    @BeforeAll
    static void peers() {
        echo = Daemon.freeTcpPort();
        servers.track(Daemon.tcpEcho(echo));
        udpEcho = Daemon.freeUdpPort();
        servers.track(Daemon.udpEcho(udpEcho));
    }

    @Test
    void aReloadKeepsRemovesAndAddsStreamsWithoutCuttingTheOnesThatStay() throws Exception {
        int kept = Daemon.freeTcpPort();
        int removed = Daemon.freeTcpPort();
        int added = Daemon.freeTcpPort();
        int udp = Daemon.freeUdpPort();
        String udpLine = "  \"127.0.0.1:" + udp + "/udp\": 127.0.0.1:" + udpEcho + "\n";
        RunningUsher usher = servers.usher("streams:\n  \"127.0.0.1:" + kept + "\": 127.0.0.1:" + echo + "\n"
                + "  \"127.0.0.1:" + removed + "\": 127.0.0.1:" + echo + "\n" + udpLine);
        try (Socket onKept = StreamsTcpTest.connect(kept); Socket onRemoved = StreamsTcpTest.connect(removed);
             DatagramSocket udpClient = StreamsUdpTest.socket()) {
            assertThat(StreamsUdpTest.ask(udpClient, udp, "before")).isEqualTo("before");
            Pump keptTraffic = new Pump(onKept);
            Pump removedTraffic = new Pump(onRemoved);
            keptTraffic.awaitRounds(20);
            removedTraffic.awaitRounds(20);

            ReloadResult result = usher.usher.reload(ConfigLoader.parse("listen: {http: \"127.0.0.1:0\", https: off}\n"
                    + "admin: off\nstreams:\n  \"127.0.0.1:" + kept + "\": {to: 127.0.0.1:" + echo
                    + ", max_connections: 50}\n  \"127.0.0.1:" + added + "\": 127.0.0.1:" + echo + "\n" + udpLine,
                    "test.yaml"));
            assertThat(result.ok()).as(String.valueOf(result.errors())).isTrue();
            assertThat(result.changes().settings()).contains("streams");

            // Both open connections carry on (a removed stream stops accepting; its open relays run to their end).
            keptTraffic.awaitRounds(keptTraffic.rounds() + 20);
            removedTraffic.awaitRounds(removedTraffic.rounds() + 20);
            assertThat(keptTraffic.stop()).isZero();
            assertThat(removedTraffic.stop()).isZero();
            assertThat(StreamsUdpTest.ask(udpClient, udp, "after")).isEqualTo("after");
        }
        assertThatThrownBy(() -> StreamsTcpTest.connect(removed).close()).isInstanceOf(ConnectException.class);
        for (int port : new int[] {kept, added}) {
            try (Socket s = StreamsTcpTest.connect(port)) {
                s.getOutputStream().write("new".getBytes());
                assertThat(s.getInputStream().readNBytes(3)).isEqualTo("new".getBytes());
            }
        }
    }

    /** Echo rounds of 1 KiB on one connection, each checked, until stopped. */
    static final class Pump {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong rounds = new AtomicLong();
        private final CompletableFuture<Long> mismatches = new CompletableFuture<>();

        Pump(Socket s) {
            Thread.ofVirtual().start(() -> {
                long bad = 0;
                try {
                    s.setSoTimeout(10_000);
                    OutputStream out = s.getOutputStream();
                    InputStream in = s.getInputStream();
                    for (int i = 0; !stop.get(); i++) {
                        byte[] sent = StreamsTcpTest.pattern(1024, i);
                        out.write(sent);
                        if (!Arrays.equals(in.readNBytes(sent.length), sent)) {
                            bad++;
                        }
                        rounds.incrementAndGet();
                    }
                    mismatches.complete(bad);
                } catch (IOException e) {
                    mismatches.completeExceptionally(e);
                }
            });
        }

        long rounds() {
            return rounds.get();
        }

        void awaitRounds(long n) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (rounds.get() < n) {
                if (mismatches.isDone()) {
                    mismatches.get(); // throws the connection's failure
                }
                assertThat(System.nanoTime()).as("echo rounds on an open connection").isLessThan(deadline);
                Thread.sleep(10);
            }
        }

        long stop() throws Exception {
            stop.set(true);
            return mismatches.get(10, TimeUnit.SECONDS);
        }
    }
}
