package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.testing.Daemon;
import dev.usher.testing.Servers;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * UDP streams against a real peer: a socat echo server (Debian's; {@code UDP4-RECVFROM,fork PIPE} answers each
 * datagram to whoever sent it). Many clients each get their own answers back from the address they wrote to; a
 * session ends after the idle timeout with its access log line; the session cap drops a new client's datagrams.
 */
class StreamsUdpTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;

    static int echo;

    @BeforeAll
    static void peers() {
        echo = Daemon.freeUdpPort();
        servers.track(Daemon.udpEcho(echo));
    }

    @Test
    void manyClientsGetTheirOwnAnswersFromTheListeningAddress() throws Exception {
        int port = Daemon.freeUdpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "/udp\": 127.0.0.1:" + echo + "\n");
        int clients = 100;
        int rounds = 5;
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Integer>> answered = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                answered.add(pool.submit(() -> {
                    int good = 0;
                    try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                        s.setSoTimeout(2000);
                        for (int r = 0; r < rounds; r++) {
                            String ask = "client " + client + " round " + r;
                            // Several tries: UDP may drop, and socat forks a process per datagram.
                            for (int attempt = 0; attempt < 3; attempt++) {
                                send(s, port, ask);
                                DatagramPacket answer = receive(s);
                                if (answer != null) {
                                    assertThat(answer.getSocketAddress())
                                            .isEqualTo(new InetSocketAddress("127.0.0.1", port));
                                    assertThat(text(answer)).isEqualTo(ask);
                                    good++;
                                    break;
                                }
                            }
                        }
                    }
                    return good;
                }));
            }
            int good = 0;
            for (Future<Integer> f : answered) {
                good += f.get(60, TimeUnit.SECONDS);
            }
            assertThat(good).isEqualTo(clients * rounds);
        }
    }

    @Test
    void aSessionEndsAfterTheIdleTimeoutAndTheCapDropsNewClients() throws Exception {
        Path log = dir.resolve("udp.log");
        int port = Daemon.freeUdpPort();
        servers.usher("access_log: " + log + "\nstreams:\n  \"127.0.0.1:" + port + "/udp\": {to: 127.0.0.1:" + echo
                + ", max_sessions: 2, timeouts: {idle: 400ms}}\n");
        try (DatagramSocket a = socket(); DatagramSocket b = socket(); DatagramSocket c = socket()) {
            assertThat(ask(a, port, "a")).isEqualTo("a");
            assertThat(ask(b, port, "b")).isEqualTo("b");
            // Two sessions open: a third client is over the cap, its datagram goes nowhere.
            send(c, port, "c");
            assertThat(receive(c)).isNull();
            // Once a's and b's sessions went idle, their lines are written and c gets a session.
            String line = AccessLogLines.awaitContaining(log, "\"kind\":\"udp\"");
            assertThat(line).contains("\"stream\":\"127.0.0.1:" + port + "/udp\"", "\"ending\":\"idle_timeout\"",
                    "\"upstream\":\"127.0.0.1:" + echo + "\"", "\"bytes_in\":1", "\"bytes_out\":1");
            Thread.sleep(300);
            assertThat(ask(c, port, "c")).isEqualTo("c");
        }
    }

    static DatagramSocket socket() throws Exception {
        DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        s.setSoTimeout(1500);
        return s;
    }

    /** Sends {@code text} and returns the answer (a few tries), or null. */
    static String ask(DatagramSocket s, int port, String text) throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            send(s, port, text);
            DatagramPacket answer = receive(s);
            if (answer != null) {
                return text(answer);
            }
        }
        return null;
    }

    static void send(DatagramSocket s, int port, String text) throws Exception {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        s.send(new DatagramPacket(b, b.length, new InetSocketAddress("127.0.0.1", port)));
    }

    static DatagramPacket receive(DatagramSocket s) throws Exception {
        DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
        try {
            s.receive(p);
            return p;
        } catch (SocketTimeoutException e) {
            return null;
        }
    }

    static String text(DatagramPacket p) {
        return new String(p.getData(), p.getOffset(), p.getLength(), StandardCharsets.UTF_8);
    }
}
