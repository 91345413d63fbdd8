package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.ReloadResult;
import dev.usher.server.ListenException;
import dev.usher.server.QuicNative;
import dev.usher.testing.Command;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.io.IOException;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The HTTP/3 listener's life around the requests: a clear error when the UDP port is taken, {@code http3: false},
 * a platform without the native QUIC library, reloads that turn it off and on, and GOAWAY at a graceful stop.
 */
class Http3ListenerTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Whoami backend;

    @BeforeAll
    static void startBackend() {
        backend = servers.backend("h3life");
    }

    static String yaml(String https, String extra) {
        return """
                listen: {http: "127.0.0.1:0", https: "%s"}
                admin: off
                data: %s
                %s
                sites:
                  app.localhost: 127.0.0.1:%d
                """.formatted(https, dir.resolve("data"), extra, backend.port());
    }

    static Usher start(String yaml, QuicNative quic) throws Exception {
        return Usher.start(ConfigLoader.parse(yaml, "h3life.yaml"), 1, Retry.DEFAULT, Duration.ofSeconds(10), quic);
    }

    /** The response head of a GET over TCP with curl, HTTP/1.1 or HTTP/2. */
    static String tcpHead(Usher usher, String version) {
        int port = usher.httpsAddress().getPort();
        Command c = Command.run(30, List.of("curl", "-sk", version, "--max-time", "20", "-D", "-", "-o", "/dev/null",
                "--resolve", "app.localhost:" + port + ":127.0.0.1", "https://app.localhost:" + port + "/"));
        assertThat(c.exitCode()).as(c.output()).isZero();
        return c.output().toLowerCase();
    }

    static boolean udpFree(int port) {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            return socket.isBound();
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * A bound UDP socket whose port number is free over TCP too (the HTTPS listener binds it there first): other
     * sockets on this machine may hold the TCP twin of a random UDP port, so a few are tried.
     */
    private static DatagramSocket udpWhoseTcpTwinIsFree() throws Exception {
        for (int attempt = 0; ; attempt++) {
            DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (ServerSocket tcp = new ServerSocket(udp.getLocalPort(), 1, InetAddress.getLoopbackAddress())) {
                return udp;
            } catch (java.net.BindException e) {
                udp.close();
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    @Test
    void aTakenUdpPortIsAClearErrorNamingPortAndProtocolAndNothingStaysBound() throws Exception {
        try (DatagramSocket taken = udpWhoseTcpTwinIsFree()) {
            int port = taken.getLocalPort();
            assertThatThrownBy(() -> start(yaml("127.0.0.1:" + port, ""), QuicNative.load()))
                    .isInstanceOf(ListenException.class)
                    .hasMessageContaining("cannot listen on UDP 127.0.0.1:" + port + " for HTTP/3 (QUIC)")
                    .hasMessageContaining("already in use")
                    .hasMessageContaining("http3: false");
            // The failed start let go of the TCP port it had bound.
            try (ServerSocket tcp = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(tcp.getLocalPort()).isEqualTo(port);
            }
        }
    }

    @Test
    void http3FalseServesTcpOnlyWithoutAltSvc() throws Exception {
        try (Usher usher = start(yaml("127.0.0.1:0", "http3: false"), QuicNative.load())) {
            assertThat(usher.http3Address()).isNull();
            assertThat(udpFree(usher.httpsAddress().getPort())).isTrue();
            assertThat(tcpHead(usher, "--http2")).startsWith("http/2 200").doesNotContain("alt-svc");
        }
    }

    @Test
    void withoutTheNativeQuicLibraryHttpsIsServedOverTcpOnly() throws Exception {
        QuicNative missing = new QuicNative(false, new UnsatisfiedLinkError("no netty_quiche42 (test)"));
        try (Usher usher = start(yaml("127.0.0.1:0", ""), missing)) {
            assertThat(usher.http3Address()).isNull();
            assertThat(udpFree(usher.httpsAddress().getPort())).isTrue();
            assertThat(tcpHead(usher, "--http1.1")).startsWith("http/1.1 200").doesNotContain("alt-svc");
        }
    }

    @Test
    void reloadsTurnHttp3OffAndOnAndAltSvcFollows() throws Exception {
        try (Usher usher = start(yaml("127.0.0.1:0", ""), QuicNative.load())) {
            int port = usher.httpsAddress().getPort();
            assertThat(usher.http3Address().getPort()).isEqualTo(port);
            try (H3Client client = H3Client.connect(port, "app.localhost")) {
                assertThat(client.get("/").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }

            ReloadResult off = usher.reload(ConfigLoader.parse(yaml("127.0.0.1:0", "http3: false"), "off.yaml"));
            assertThat(off.ok()).as(off.toString()).isTrue();
            assertThat(usher.http3Address()).isNull();
            assertThat(udpFree(port)).isTrue();
            assertThat(tcpHead(usher, "--http1.1")).doesNotContain("alt-svc");

            ReloadResult on = usher.reload(ConfigLoader.parse(yaml("127.0.0.1:0", "http3: true"), "on.yaml"));
            assertThat(on.ok()).as(on.toString()).isTrue();
            assertThat(usher.http3Address().getPort()).isEqualTo(port);
            assertThat(tcpHead(usher, "--http1.1")).contains("alt-svc: h3=\":" + port + "\"; ma=2592000");
            try (H3Client client = H3Client.connect(port, "app.localhost")) {
                assertThat(client.get("/").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        }
    }

    /** Twenty reloads that turn HTTP/3 off and on, with a request each time it is on, leak no socket or thread. */
    @Test
    void reloadsTogglingHttp3LeakNoFileDescriptorsOrThreads() throws Exception {
        try (Usher usher = start(yaml("127.0.0.1:0", ""), QuicNative.load())) {
            int port = usher.httpsAddress().getPort();
            toggle(usher, port, false);
            toggle(usher, port, true); // warmed up: pools, event loop threads, class loading
            long fdsBefore = openFileDescriptors();
            int threadsBefore = Thread.activeCount();
            for (int i = 0; i < 10; i++) {
                toggle(usher, port, false);
                toggle(usher, port, true);
            }
            long fdsAfter = openFileDescriptors();
            int threadsAfter = Thread.activeCount();
            System.out.printf("HTTP/3 reloads: file descriptors %d -> %d, threads %d -> %d over 20 reloads%n",
                    fdsBefore, fdsAfter, threadsBefore, threadsAfter);
            assertThat(fdsAfter - fdsBefore).as("file descriptors gained over 20 reloads").isLessThan(10);
            assertThat(threadsAfter - threadsBefore).as("threads gained over 20 reloads").isLessThan(5);
        }
    }

    private static void toggle(Usher usher, int port, boolean on) throws Exception {
        ReloadResult result = usher.reload(ConfigLoader.parse(yaml("127.0.0.1:0", "http3: " + on), "toggle.yaml"));
        assertThat(result.ok()).as(result.toString()).isTrue();
        if (on) {
            try (H3Client client = H3Client.connect(port, "app.localhost")) {
                assertThat(client.get("/").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        } else {
            assertThat(usher.http3Address()).isNull();
        }
    }

    private static long openFileDescriptors() throws Exception {
        try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    @Test
    void aReloadThatMovesTheHttpsPortMovesHttp3WithIt() throws Exception {
        int newPort = portFreeForTcpAndUdp();
        try (Usher usher = start(yaml("127.0.0.1:0", ""), QuicNative.load())) {
            int oldPort = usher.http3Address().getPort();
            ReloadResult moved = usher.reload(ConfigLoader.parse(yaml("127.0.0.1:" + newPort, ""), "moved.yaml"));
            assertThat(moved.ok()).as(moved.toString()).isTrue();
            assertThat(usher.httpsAddress().getPort()).isEqualTo(newPort);
            assertThat(usher.http3Address().getPort()).isEqualTo(newPort);
            assertThat(udpFree(oldPort)).isTrue();
            assertThat(tcpHead(usher, "--http2")).contains("alt-svc: h3=\":" + newPort + "\"; ma=2592000");
            try (H3Client client = H3Client.connect(newPort, "app.localhost")) {
                assertThat(client.get("/").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            }
        }
    }

    @Test
    void gracefulStopSendsGoawayAndLetsTheOpenStreamFinish() throws Exception {
        Usher usher = start(yaml("127.0.0.1:0", ""), QuicNative.load());
        try (H3Client client = H3Client.connect(usher.httpsAddress().getPort(), "app.localhost")) {
            assertThat(client.get("/warm").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
            CompletableFuture<H3Client.Response> slow = client.get("/slow?wait=1500ms");
            Thread.sleep(300); // the request is with the backend
            CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> usher.shutdown(Duration.ofSeconds(10)));
            H3Client.Response r = slow.get(20, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyStart()).contains("GET /slow?wait=1500ms");
            assertThat(client.goAwaysReceived()).isEqualTo(1);
            stopped.get(20, TimeUnit.SECONDS);
            // The connection was closed by Usher once its last stream was done, well inside the grace period.
            assertThat(client.quic.closeFuture().await(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            usher.close();
        }
    }

    /** A loopback port free for both UDP and TCP right now: a UDP pick can be taken for TCP, so try a few. */
    private static int portFreeForTcpAndUdp() throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port;
            try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                port = probe.getLocalPort();
            }
            try (ServerSocket tcp = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return tcp.getLocalPort();
            } catch (BindException takenForTcp) {
                if (attempt == 20) {
                    throw takenForTcp;
                }
            }
        }
    }
}
