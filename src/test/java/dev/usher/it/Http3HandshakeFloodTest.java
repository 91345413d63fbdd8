package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * QUIC Initial packets from an address that never answers (a spoofed source) must not use up
 * {@code limits.connections}, which HTTP/3 shares with TCP: a UDP flood would otherwise lock every HTTPS client out
 * for the handshake timeout. The relay below plays the spoofer: it passes each client's packets on to Usher from its
 * own socket and drops everything Usher sends back, so no handshake ever completes.
 */
class Http3HandshakeFloodTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Whoami backend;
    static Usher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("h3flood");
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                limits: {connections: 4}
                """.formatted(dir.resolve("data"), backend.port());
        usher = servers.track(Usher.start(ConfigLoader.parse(yaml, "h3flood.yaml"), 1, Retry.DEFAULT, Duration.ofMillis(500)));
    }

    @Test
    void unfinishedQuicHandshakesDoNotTakeTheConnectionSlotsOfTcpClients() throws Exception {
        int port = usher.httpsAddress().getPort();
        try (DatagramSocket relay = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            Thread forwarder = Thread.ofVirtual().start(() -> forwardOneWay(relay, port));
            List<Thread> handshakes = new ArrayList<>();
            for (int i = 0; i < 8; i++) { // twice the limit
                handshakes.add(Thread.ofVirtual().start(() -> {
                    try (H3Client never = H3Client.connect(relay.getLocalPort(), "app.localhost")) {
                        throw new AssertionError("a handshake through the one-way relay completed");
                    } catch (Exception expected) {
                        // the client gives up after its own timeout
                    }
                }));
            }
            Thread.sleep(2_000); // the Initial packets are in, Usher's answers dropped
            assertThat(httpsAnswers200(port)).as("HTTPS over TCP while QUIC handshakes hang").isTrue();
            try (H3Client real = H3Client.connect(port, "app.localhost")) {
                assertThat(real.get("/h3").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            relay.close();
            forwarder.join(5_000);
            for (Thread t : handshakes) {
                t.join(30_000);
            }
        }
    }

    /** Established QUIC connections do count: with four open, a fifth is closed once its handshake is done. */
    @Test
    void establishedQuicConnectionsCountAgainstTheLimit() throws Exception {
        int port = usher.httpsAddress().getPort();
        List<H3Client> open = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                H3Client client = H3Client.connect(port, "app.localhost");
                open.add(client);
                assertThat(client.get("/in").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
            try (H3Client fifth = H3Client.connect(port, "app.localhost")) {
                assertThat(fifth.get("/over").orTimeout(20, TimeUnit.SECONDS)).failsWithin(25, TimeUnit.SECONDS);
            } catch (Exception closedDuringHandshake) {
                // as good: the connection ended before the client saw it established
            }
        } finally {
            open.forEach(H3Client::close);
        }
        // Closed connections give their slots back (the next test needs them).
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline && !httpsAnswers200(port)) {
            Thread.sleep(100);
        }
        assertThat(httpsAnswers200(port)).isTrue();
    }

    private static boolean httpsAnswers200(int port) {
        return Command.run(30, List.of("curl", "-sk", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}",
                "--resolve", "app.localhost:" + port + ":127.0.0.1", "https://app.localhost:" + port + "/"))
                .output().equals("200");
    }

    /** Passes datagrams from clients on to Usher (from the relay's own address); drops Usher's answers. */
    private static void forwardOneWay(DatagramSocket relay, int usherPort) {
        byte[] buffer = new byte[2048];
        InetSocketAddress usherAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), usherPort);
        while (!relay.isClosed()) {
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                relay.receive(packet);
                if (packet.getPort() != usherPort) {
                    relay.send(new DatagramPacket(packet.getData(), packet.getLength(), usherAddress));
                }
            } catch (SocketException closed) {
                return;
            } catch (java.io.IOException e) {
                return;
            }
        }
    }
}
