package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.testing.Command;
import dev.usher.testing.Daemon;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The PROXY protocol against HAProxy (Debian's), both ways. As the backend: HAProxy's {@code accept-proxy} frontend
 * requires the header that a stream with {@code proxy_protocol: v1|v2} sends and logs the client address it learned
 * from it. As the load balancer in front: HAProxy's {@code send-proxy}/{@code send-proxy-v2} tells Usher the client's
 * address, which the backend then sees in {@code X-Forwarded-For} and which allow/deny judges. Clients connect from
 * 127.0.0.2 (any 127/8 address is loopback on Linux), so the learned address differs from the TCP peer's, 127.0.0.1.
 */
class ProxyProtocolTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;

    static int echo;

    @BeforeAll
    static void peers() {
        echo = Daemon.freeTcpPort();
        servers.track(Daemon.tcpEcho(echo));
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void haproxyBehindAStreamLearnsTheClientAddress(String version) throws Exception {
        int haproxyPort = Daemon.freeTcpPort();
        Daemon haproxy = haproxy("""
                frontend from_usher
                    bind 127.0.0.1:%d accept-proxy
                    log-format "learned %%ci:%%cp peer %%[src] frontend %%f"
                    default_backend echo
                backend echo
                    server echo 127.0.0.1:%d
                """.formatted(haproxyPort, echo), haproxyPort);
        int port = Daemon.freeTcpPort();
        servers.usher("streams:\n  \"127.0.0.1:" + port + "\": {to: 127.0.0.1:" + haproxyPort
                + ", proxy_protocol: " + version + "}\n");
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress("127.0.0.2", 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            int clientPort = s.getLocalPort();
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            s.setSoTimeout(10_000);
            // HAProxy closes a connection without a valid header: an answer means it accepted Usher's.
            assertThat(s.getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(StandardCharsets.US_ASCII));
            s.close();
            haproxy.awaitOutput("learned 127.0.0.2:" + clientPort + " ");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void theHeaderIsTheFirstBytesTheBackendGets(String version) throws Exception {
        // A backend started in the test reads the first bytes: v1's text line, v2's 12-byte signature (HAProxy's spec).
        try (ServerSocket backend = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = Daemon.freeTcpPort();
            servers.usher("streams:\n  \"127.0.0.1:" + port + "\": {to: 127.0.0.1:" + backend.getLocalPort()
                    + ", proxy_protocol: " + version + "}\n");
            CompletableFuture<byte[]> first = CompletableFuture.supplyAsync(() -> {
                try (Socket in = backend.accept()) {
                    in.setSoTimeout(10_000);
                    return in.getInputStream().readNBytes(version.equals("v1") ? 21 : 12);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket s = new Socket()) {
                s.bind(new InetSocketAddress("127.0.0.2", 0));
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                byte[] got = first.get(10, TimeUnit.SECONDS);
                if (version.equals("v1")) {
                    assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("PROXY TCP4 127.0.0.2 ");
                } else {
                    assertThat(got).isEqualTo(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49,
                            0x54, 0x0A});
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"send-proxy", "send-proxy-v2"})
    void haproxyInFrontTellsUsherTheClientAddress(String sendProxy) throws Exception {
        Whoami whoami = servers.backend("behind");
        RunningUsher usher = servers.usher("listen: {http: \"127.0.0.1:0\", https: off, proxy_protocol: [127.0.0.1/32]}\n"
                + "sites:\n  http://app.test: " + Servers.address(whoami) + "\n"
                + "  http://closed.test: {to: " + Servers.address(whoami) + ", deny: [127.0.0.2]}\n");
        int front = Daemon.freeTcpPort();
        haproxy("""
                frontend lb
                    bind 127.0.0.1:%d
                    default_backend usher
                backend usher
                    server usher 127.0.0.1:%d %s
                """.formatted(front, usher.port(), sendProxy), front);
        Command app = curl("app.test", front);
        assertThat(app.output()).contains("HTTP/1.1 200", "x-forwarded-for: 127.0.0.2", "Hostname: behind");
        // deny: judges the address the header gave, not the load balancer's.
        assertThat(curl("closed.test", front).output()).contains("HTTP/1.1 403");
    }

    @Test
    void haproxyInFrontOfAStreamGivesTheClientForTheLogAndDeny() throws Exception {
        Path log = dir.resolve("stream-behind-lb.log");
        int port = Daemon.freeTcpPort();
        int closed = Daemon.freeTcpPort();
        servers.usher("listen: {http: \"127.0.0.1:0\", https: off, proxy_protocol: [127.0.0.1/32]}\naccess_log: " + log
                + "\nstreams:\n  \"127.0.0.1:" + port + "\": 127.0.0.1:" + echo + "\n  \"127.0.0.1:" + closed
                + "\": {to: 127.0.0.1:" + echo + ", deny: [127.0.0.2]}\n");
        int front = Daemon.freeTcpPort();
        int frontClosed = Daemon.freeTcpPort();
        haproxy("""
                listen lb
                    bind 127.0.0.1:%d
                    server usher 127.0.0.1:%d send-proxy-v2
                listen lb_closed
                    bind 127.0.0.1:%d
                    server usher 127.0.0.1:%d send-proxy-v2
                """.formatted(front, port, frontClosed, closed), front);
        try (Socket s = fromSecondLoopback(front)) {
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertThat(s.getInputStream().readNBytes(4)).isEqualTo("ping".getBytes(StandardCharsets.US_ASCII));
        }
        // (HAProxy came from 127.0.0.1 for the start-up probe; the client's line names 127.0.0.2.)
        String line = AccessLogLines.awaitContaining(log, "\"client\":\"127.0.0.2\",\"stream\":\"127.0.0.1:" + port
                + "\"");
        assertThat(line).contains("\"bytes_in\":4", "\"ending\":\"client_closed\"");
        try (Socket s = fromSecondLoopback(frontClosed)) {
            s.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
            assertThat(readAll(s.getInputStream())).isEmpty();
        }
        assertThat(AccessLogLines.awaitContaining(log, "\"client\":\"127.0.0.2\",\"stream\":\"127.0.0.1:" + closed
                + "\"")).contains("\"ending\":\"denied\"");
    }

    /** A connection to 127.0.0.1:{@code port} from 127.0.0.2, with a 10 s read timeout. */
    static Socket fromSecondLoopback(int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress("127.0.0.2", 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout(10_000);
        return s;
    }

    @Test
    void aTrustedSourceMustSendTheHeaderAndOthersNeedNot() throws Exception {
        Whoami whoami = servers.backend("behind");
        RunningUsher usher = servers.usher("listen: {http: \"127.0.0.1:0\", https: off, proxy_protocol: [127.0.0.1/32]}\n"
                + "sites:\n  http://app.test: " + Servers.address(whoami) + "\n");
        // From the load balancer's address without a header (plain HTTP, or a broken header): closed, no answer.
        for (String sent : List.of("GET / HTTP/1.1\r\nHost: app.test\r\n\r\n", "PROXY TCP4 1.2.3\r\n\r\n")) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", usher.port()), 10_000);
                s.setSoTimeout(15_000);
                s.getOutputStream().write(sent.getBytes(StandardCharsets.US_ASCII));
                assertThat(readAll(s.getInputStream())).as(sent).isEmpty();
            }
        }
        // From anywhere else: served as before, its own address forwarded.
        Command direct = Command.run(20, List.of("curl", "-sS", "--max-time", "10", "--interface", "127.0.0.3",
                "-H", "Host: app.test", "http://127.0.0.1:" + usher.port() + "/"));
        assertThat(direct.output()).contains("x-forwarded-for: 127.0.0.3");
    }

    /** HAProxy in the foreground with {@code sections} after a global/defaults part that logs to stdout. */
    static Daemon haproxy(String sections, int port) throws IOException {
        return haproxy(servers, dir, sections, port);
    }

    /** As {@link #haproxy(String, int)}, its config in {@code folder}, closed by {@code scope}. */
    static Daemon haproxy(Servers scope, Path folder, String sections, int port) throws IOException {
        Path config = Files.createTempFile(folder, "haproxy-", ".cfg");
        Files.writeString(config, """
                global
                    log stdout format raw local0
                defaults
                    mode tcp
                    log global
                    timeout connect 5s
                    timeout client 30s
                    timeout server 30s
                """ + sections);
        return scope.track(Daemon.start(List.of("haproxy", "-db", "-f", config.toString()))).awaitTcp(port);
    }

    /** curl through the load balancer from 127.0.0.2: the response head and body. */
    static Command curl(String host, int port) {
        return Command.run(20, List.of("curl", "-sS", "-i", "--max-time", "10", "--interface", "127.0.0.2", "-H",
                "Host: " + host, "http://127.0.0.1:" + port + "/"));
    }

    static byte[] readAll(InputStream in) throws IOException {
        try {
            return in.readAllBytes();
        } catch (java.net.SocketException e) {
            return new byte[0]; // reset: closed as well
        }
    }
}
