package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code Usher.shutdown(grace)} in-process, over real sockets: a request in flight finishes (with
 * {@code Connection: close}), an idle keep-alive connection is closed at once, new connections are refused, a
 * websocket is told "going away" (1001), and what outlives the grace period is cut.
 */
class GracefulShutdownTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;

    @BeforeAll
    static void startBackend() throws Exception {
        backend = servers.backend("slow");
    }

    private static RunningUsher usher() throws Exception {
        return RunningUsher.start("sites:\n  127.0.0.1: 127.0.0.1:" + backend.port() + "\n");
    }

    private static CompletableFuture<Long> shutdownInBackground(RunningUsher usher, Duration grace) {
        CompletableFuture<Long> took = new CompletableFuture<>();
        Thread.ofPlatform().start(() -> {
            long start = System.nanoTime();
            usher.usher.shutdown(grace);
            took.complete(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        });
        return took;
    }

    @Test
    void aRequestInFlightFinishesWithConnectionCloseWhileIdleConnectionsCloseAndNewOnesAreRefused()
            throws Exception {
        RunningUsher usher = usher();
        int port = usher.port();
        try (RawHttp slow = new RawHttp(port); RawHttp idle = new RawHttp(port)) {
            idle.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            assertThat(idle.read().status()).isEqualTo(200);
            slow.send("GET /?wait=1500ms HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            Thread.sleep(300); // the slow request is with the backend
            CompletableFuture<Long> took = shutdownInBackground(usher, Duration.ofSeconds(10));

            idle.socket.setSoTimeout(1000);
            long start = System.nanoTime();
            assertThat(idle.closedByServer()).as("the idle keep-alive connection is closed at once").isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
            assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);

            RawHttp.Response answer = slow.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.header("connection")).isEqualToIgnoringCase("close");
            assertThat(slow.closedByServer()).isTrue();
            assertThat(took.get(5, TimeUnit.SECONDS)).as("stopped once the last answer was out, within the grace")
                    .isLessThan(3000);
        }
    }

    @Test
    void aRequestArrivingOnAKeptAliveConnectionDuringTheGraceIsNotStarted() throws Exception {
        RunningUsher usher = usher();
        try (RawHttp slow = new RawHttp(usher.port()); RawHttp pipelined = new RawHttp(usher.port())) {
            slow.send("GET /?wait=1s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            // Two pipelined requests: the first is in flight when the stop comes, the second is never served.
            pipelined.send("GET /?wait=700ms HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /second HTTP/1.1\r\n"
                    + "Host: 127.0.0.1\r\n\r\n");
            Thread.sleep(300);
            CompletableFuture<Long> took = shutdownInBackground(usher, Duration.ofSeconds(10));
            RawHttp.Response first = pipelined.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.header("connection")).isEqualToIgnoringCase("close");
            assertThat(pipelined.closedByServer()).as("the pipelined request is left for the client to retry")
                    .isTrue();
            assertThat(slow.read().status()).isEqualTo(200);
            took.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void whatOutlivesTheGracePeriodIsCut() throws Exception {
        RunningUsher usher = usher();
        try (RawHttp slow = new RawHttp(usher.port())) {
            slow.send("GET /?wait=30s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            Thread.sleep(200);
            CompletableFuture<Long> took = shutdownInBackground(usher, Duration.ofMillis(800));
            assertThat(slow.read()).as("no answer, the connection is cut").isNull();
            assertThat(took.get(5, TimeUnit.SECONDS)).isBetween(700L, 4000L);
        }
    }

    @Test
    void aWebsocketIsClosedWithGoingAway() throws Exception {
        RunningUsher usher = usher();
        WebsocketTest.Collector collector = new WebsocketTest.Collector();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + usher.port() + "/chat"), collector)
                .get(5, TimeUnit.SECONDS);
        ws.sendText("before", true).get(5, TimeUnit.SECONDS);
        assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("before");
        CompletableFuture<Long> took = shutdownInBackground(usher, Duration.ofSeconds(10));
        assertThat(collector.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1001);
        assertThat(took.get(5, TimeUnit.SECONDS)).as("the client answered the close: no need to wait")
                .isLessThan(2000);
    }

    @Test
    void aWebsocketClientThatNeverAnswersGetsTheCloseFrameAfterWholeFramesThenIsClosed() throws Exception {
        RunningUsher usher = usher();
        try (Socket client = new Socket("127.0.0.1", usher.port())) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = client.getInputStream();
            assertThat(WebsocketTest.readHead(in)).startsWith("HTTP/1.1 101");
            // A masked text frame "hi": the backend echoes it; then the close frame must follow it whole.
            client.getOutputStream().write(new byte[]{(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 'h' ^ 1, 'i' ^ 2});
            byte[] echo = in.readNBytes(4);
            assertThat(echo).containsExactly(0x81, 0x02, 'h', 'i');
            shutdownInBackground(usher, Duration.ofSeconds(10));
            byte[] close = in.readNBytes(4);
            assertThat(close).containsExactly(0x88, 0x02, 0x03, 0xE9);
            assertThat(in.read()).as("then the connection closes").isEqualTo(-1);
        }
    }
}
