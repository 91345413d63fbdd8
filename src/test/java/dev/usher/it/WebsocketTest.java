package dev.usher.it;

import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Websockets pass through with no configuration, both ways, and closing one side closes the other. */
class WebsocketTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("ws");
        // An IP-literal site: java.net.http's websocket client cannot be told a Host header of our choosing.
        usher = servers.usher("sites:\n  ws.example.com: 127.0.0.1:" + backend.port() + "\n  127.0.0.1: 127.0.0.1:"
                + backend.port() + "\n");
    }

    /** Collects whole messages. */
    static final class Collector implements WebSocket.Listener {
        final LinkedBlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private ByteBuffer binary = ByteBuffer.allocate(0);

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                messages.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            ByteBuffer grown = ByteBuffer.allocate(binary.remaining() + data.remaining());
            grown.put(binary).put(data).flip();
            binary = grown;
            if (last) {
                byte[] b = new byte[binary.remaining()];
                binary.get(b);
                messages.add(b);
                binary = ByteBuffer.allocate(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            closed.complete(status);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
        }
    }

    @Test
    void echoesTextAndLargeBinaryMessagesThroughUsher() throws Exception {
        Collector collector = new Collector();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + usher.port() + "/chat"), collector)
                .get(5, TimeUnit.SECONDS);
        ws.sendText("hello through usher", true).get(5, TimeUnit.SECONDS);
        assertThat(collector.messages.poll(5, TimeUnit.SECONDS)).isEqualTo("hello through usher");
        byte[] big = new byte[2 * 1024 * 1024];
        new Random(7).nextBytes(big);
        ws.sendBinary(ByteBuffer.wrap(big), true).get(10, TimeUnit.SECONDS);
        assertThat((byte[]) collector.messages.poll(10, TimeUnit.SECONDS)).isEqualTo(big);
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
        assertThat(collector.closed.get(5, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    }

    @Test
    void closingTheClientSideClosesTheBackendSide() throws Exception {
        long acceptedBefore = backend.acceptedConnections();
        try (Socket client = new Socket("127.0.0.1", usher.port())) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: ws.example.com\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = client.getInputStream();
            String head = readHead(in);
            assertThat(head).startsWith("HTTP/1.1 101").containsIgnoringCase("upgrade: websocket");
            assertThat(backend.acceptedConnections()).isGreaterThan(acceptedBefore);
        }
        // The backend's side of the relay must close too: the backend sees its connection end.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (backend.openConnections() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(backend.openConnections()).isZero();
    }

    static String readHead(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }
}
