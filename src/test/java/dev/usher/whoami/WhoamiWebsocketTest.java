package dev.usher.whoami;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WhoamiWebsocketTest {
    private Whoami whoami;
    private HttpClient client;
    private final Collector messages = new Collector();

    @BeforeEach
    void start() {
        whoami = Whoami.start("127.0.0.1", 0, "ws");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() {
        client.shutdownNow(); // close() would wait for websockets the server keeps open
        whoami.close();
    }

    private WebSocket connect(String path) throws Exception {
        return client.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + whoami.port() + path), messages)
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void echoesTextAndLargeBinaryMessages() throws Exception {
        WebSocket ws = connect("/any/path?x=1");

        ws.sendText("hello, whoami", true).get(10, TimeUnit.SECONDS);
        assertThat(messages.next()).isEqualTo("hello, whoami");

        byte[] big = new byte[1 << 20];
        new Random(42).nextBytes(big);
        ws.sendBinary(ByteBuffer.wrap(big), true).get(10, TimeUnit.SECONDS);
        assertThat((byte[]) messages.next()).isEqualTo(big);

        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(10, TimeUnit.SECONDS);
        assertThat(messages.closed.get(10, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
        assertThat(whoami.requestsSeen()).isEqualTo(1);
    }

    @Test
    void aggregatesFragmentedMessages() throws Exception {
        WebSocket ws = connect("/");

        ws.sendText("frag", false).get(10, TimeUnit.SECONDS);
        ws.sendText("mented", true).get(10, TimeUnit.SECONDS);

        assertThat(messages.next()).isEqualTo("fragmented");
    }

    @Test
    void answersPings() throws Exception {
        WebSocket ws = connect("/");

        ws.sendPing(ByteBuffer.wrap(new byte[] {1, 2, 3})).get(10, TimeUnit.SECONDS);

        assertThat((byte[]) messages.next()).as("pong payload").containsExactly(1, 2, 3);
    }

    /** Collects whole messages (text as String, binary and pong as byte[]) and the close code. */
    private static final class Collector implements WebSocket.Listener {
        final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        Object next() throws InterruptedException {
            Object message = queue.poll(10, TimeUnit.SECONDS);
            assertThat(message).as("a message within 10s").isNotNull();
            return message;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                queue.add(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            binary.writeBytes(bytes);
            if (last) {
                queue.add(binary.toByteArray());
                binary.reset();
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            byte[] bytes = new byte[message.remaining()];
            message.get(bytes);
            queue.add(bytes);
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.completeExceptionally(error);
            queue.add(error);
        }
    }
}
