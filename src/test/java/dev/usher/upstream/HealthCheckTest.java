package dev.usher.upstream;

import dev.usher.config.Balancing;
import dev.usher.config.UpstreamAddress;
import dev.usher.net.Transport;
import dev.usher.whoami.Whoami;
import io.netty.channel.EventLoopGroup;
import io.netty.resolver.AddressResolverGroup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** Active health checks against real backends on loopback. */
class HealthCheckTest {
    private static final Duration INTERVAL = Duration.ofMillis(200);

    private final Transport transport = Transport.best();
    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private EventLoopGroup loops;
    private AddressResolverGroup<InetSocketAddress> resolver;

    @BeforeEach
    void setUp() {
        loops = transport.newGroup(1, "test");
        resolver = new OffloadingResolverGroup();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) {
            cleanup.get(i).close();
        }
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        resolver.close();
    }

    private UpstreamPool pool(int port) {
        return new UpstreamPool(new UpstreamAddress("127.0.0.1", port), transport, resolver, 8,
                Duration.ofSeconds(50), new BackendTls());
    }

    private Whoami whoami(String name) {
        Whoami w = Whoami.start("127.0.0.1", 0, name);
        cleanup.add(w);
        return w;
    }

    private UpstreamGroup checkedGroup(String path, Duration timeout, UpstreamPool... pools) {
        Balancing balancing = new Balancing(Balancing.Policy.ROUND_ROBIN, 3, Duration.ofSeconds(30),
                new Balancing.HealthCheck(path, INTERVAL, timeout));
        UpstreamGroup g = new UpstreamGroup("app.example.com", List.of(pools), balancing);
        cleanup.add(g);
        g.startHealthChecks(loops, transport);
        return g;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static BackendStatus status(UpstreamGroup g, int index) {
        return g.status().get(index);
    }

    /** Polls until {@code condition} holds; fails after {@code within}. */
    private static void await(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + within.toMillis() + " ms waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void closedPortGoesDownWithinASecondAndHealthyBackendStaysUp() throws Exception {
        Whoami a = whoami("a");
        int closed = closedPort();
        UpstreamGroup g = checkedGroup("/health", Duration.ofMillis(500), pool(a.port()), pool(closed));
        long start = System.nanoTime();
        await("the closed port is down", Duration.ofMillis(1500), () -> !status(g, 1).up());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
        assertThat(status(g, 1).downReason()).isEqualTo("health check: connection refused");
        assertThat(status(g, 1).consecutiveFailures()).isZero(); // active and passive health are separate

        await("a few more rounds ran", Duration.ofSeconds(3), () -> a.requestsSeen() >= 3);
        assertThat(status(g, 0).up()).isTrue();
        for (int i = 0; i < 20; i++) {
            assertThat(g.pick(null, List.of())).isSameAs(g.pools().get(0));
        }
    }

    @Test
    void backendClosedMidTestGoesDownAndOneStartedOnAClosedPortComesUp() throws Exception {
        Whoami a = whoami("a");
        Whoami b = whoami("b");
        UpstreamGroup g = checkedGroup("/health", Duration.ofMillis(500), pool(a.port()), pool(b.port()));
        await("b was checked", Duration.ofSeconds(2), () -> b.requestsSeen() >= 1);
        assertThat(g.status()).allMatch(BackendStatus::up);

        int port = b.port();
        b.close();
        await("b is down", Duration.ofMillis(1500), () -> !status(g, 1).up());
        assertThat(g.pick(null, List.of(g.pools().get(0)))).isNull(); // down by a check: not tried as a last resort

        try (Whoami again = Whoami.start("127.0.0.1", port, "b again")) {
            await("b is up again", Duration.ofMillis(1500), () -> status(g, 1).up());
            assertThat(status(g, 1).downReason()).isNull();
            assertThat(again.requestsSeen()).isPositive();
        }
    }

    @Test
    void errorStatusMarksDown() throws Exception {
        Whoami a = whoami("a");
        UpstreamGroup g = checkedGroup("/status/503", Duration.ofMillis(500), pool(a.port()));
        await("503 marks it down", Duration.ofMillis(1500), () -> !status(g, 0).up());
        assertThat(status(g, 0).downReason()).isEqualTo("health check: status 503");
        assertThat(g.pick(null, List.of())).isNull();
    }

    @Test
    void redirectCountsAsHealthy() throws Exception {
        Whoami a = whoami("a");
        UpstreamGroup g = checkedGroup("/status/302", Duration.ofMillis(500), pool(a.port()));
        await("checked twice", Duration.ofSeconds(2), () -> a.requestsSeen() >= 2);
        assertThat(status(g, 0).up()).isTrue();
    }

    @Test
    void slowAnswerTimesOut() throws Exception {
        Whoami a = whoami("a");
        UpstreamGroup g = checkedGroup("/health?wait=3s", Duration.ofMillis(150), pool(a.port()));
        await("the slow backend is down", Duration.ofMillis(1500), () -> !status(g, 0).up());
        assertThat(status(g, 0).downReason()).isEqualTo("health check: timed out after 150ms");
    }

    @Test
    void sendsGetWithHostAndUserAgentAndStopsOnClose() throws Exception {
        List<String> heads = new CopyOnWriteArrayList<>();
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        try {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        BufferedReader in = new BufferedReader(
                                new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
                        StringBuilder head = new StringBuilder();
                        for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
                            head.append(line).append('\n');
                        }
                        heads.add(head.toString());
                        OutputStream out = s.getOutputStream();
                        out.write("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
                                .getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    } catch (IOException e) {
                        // closed at the end of the test
                    }
                }
            });
            int port = server.getLocalPort();
            UpstreamGroup g = checkedGroup("/healthz", Duration.ofMillis(500), pool(port));
            await("two checks arrived", Duration.ofSeconds(2), () -> heads.size() >= 2);
            assertThat(heads.get(0))
                    .startsWith("GET /healthz HTTP/1.1\n")
                    .containsIgnoringCase("host: 127.0.0.1:" + port + "\n")
                    .containsIgnoringCase("user-agent: usher-health\n")
                    .containsIgnoringCase("connection: close\n");
            assertThat(status(g, 0).up()).isTrue();

            g.close();
            Thread.sleep(INTERVAL.toMillis()); // a check already under way may still land
            int seen = heads.size();
            Thread.sleep(INTERVAL.toMillis() * 3);
            assertThat(heads).hasSize(seen);
            server.close();
            acceptor.join(2000);
        } finally {
            server.close();
        }
    }

    @Test
    void withoutHealthSettingsStartDoesNothing() throws Exception {
        Whoami a = whoami("a");
        UpstreamGroup g = new UpstreamGroup("x", List.of(pool(a.port())), Balancing.DEFAULTS);
        cleanup.add(g);
        g.startHealthChecks(loops, transport);
        Thread.sleep(300);
        assertThat(a.requestsSeen()).isZero();
    }
}
