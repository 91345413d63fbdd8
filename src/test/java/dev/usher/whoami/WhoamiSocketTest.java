package dev.usher.whoami;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Behaviour seen on a raw socket: connection handling, pipelining and streaming in both directions at once. */
@Timeout(60)
class WhoamiSocketTest {
    private Whoami whoami;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void start() {
        whoami = Whoami.start("127.0.0.1", 0, "raw");
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        whoami.close();
    }

    private Socket connect() throws Exception {
        Socket socket = new Socket("127.0.0.1", whoami.port());
        socket.setSoTimeout(30_000);
        return socket;
    }

    @Test
    void answersHttp10AndClosesTheConnection() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET /old HTTP/1.0\r\n\r\n");
            InputStream in = socket.getInputStream();

            RawHttp.Head head = RawHttp.readHead(in);
            String body = RawHttp.readBodyText(in, head);

            assertThat(head.statusLine()).startsWith("HTTP/1.0 200");
            assertThat(body).contains("GET /old HTTP/1.0\n").startsWith("Hostname: raw\n");
            assertThat(in.read()).as("connection closed after the response").isEqualTo(-1);
        }
    }

    @Test
    void keepsHttp10OpenWhenAskedTo() throws Exception {
        try (Socket socket = connect()) {
            InputStream in = socket.getInputStream();
            for (int i = 0; i < 2; i++) {
                RawHttp.write(socket.getOutputStream(), "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
                RawHttp.Head head = RawHttp.readHead(in);
                assertThat(head.header("connection")).isEqualToIgnoringCase("keep-alive");
                assertThat(RawHttp.readBodyText(in, head)).isEqualTo("ok\n");
            }
        }
        assertThat(whoami.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void closesAfterConnectionClose() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            InputStream in = socket.getInputStream();

            RawHttp.Head head = RawHttp.readHead(in);

            assertThat(head.header("connection")).isEqualToIgnoringCase("close");
            assertThat(RawHttp.readBodyText(in, head)).isEqualTo("ok\n");
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void answersPipelinedRequestsInOrder() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET /first?wait=100ms HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                    + "GET /status/418 HTTP/1.1\r\nHost: x\r\n\r\n");
            InputStream in = socket.getInputStream();

            RawHttp.Head first = RawHttp.readHead(in);
            assertThat(RawHttp.readBodyText(in, first)).contains("GET /first?wait=100ms HTTP/1.1\n");
            RawHttp.Head second = RawHttp.readHead(in);
            assertThat(RawHttp.readBodyText(in, second)).isEqualTo("hello");
            RawHttp.Head third = RawHttp.readHead(in);
            assertThat(third.status()).isEqualTo(418);
            RawHttp.readBodyText(in, third);
        }
        assertThat(whoami.requestsSeen()).isEqualTo(3);
    }

    @Test
    void answersManyPipelinedRequestsFromOneWrite() throws Exception {
        int n = 2000;
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET /health HTTP/1.1\r\nHost: x\r\n\r\n".repeat(n));
            InputStream in = socket.getInputStream();
            for (int i = 0; i < n; i++) {
                RawHttp.Head head = RawHttp.readHead(in);
                assertThat(RawHttp.readBodyText(in, head)).isEqualTo("ok\n");
            }
        }
        assertThat(whoami.requestsSeen()).isEqualTo(n);
    }

    @Test
    void answersContinueBeforeReadingTheBody() throws Exception {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            RawHttp.write(out, "PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n");

            assertThat(RawHttp.readHead(in).status()).isEqualTo(100);
            RawHttp.write(out, "abc");
            RawHttp.Head head = RawHttp.readHead(in);
            assertThat(RawHttp.readBodyText(in, head)).isEqualTo("abc");
        }
    }

    @Test
    void rejectsAMalformedRequestAndCloses() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n");
            InputStream in = socket.getInputStream();

            RawHttp.Head head = RawHttp.readHead(in);

            assertThat(head.status()).isEqualTo(400);
            assertThat(head.header("x-whoami")).isEqualTo("raw");
            RawHttp.readBodyText(in, head);
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void closeEndsOpenConnections() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.write(socket.getOutputStream(), "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
            InputStream in = socket.getInputStream();
            RawHttp.readBodyText(in, RawHttp.readHead(in));

            whoami.close();

            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void echoesA50MiBBodyWithContentLengthWhileItStreams() throws Exception {
        echo50MiB(false);
    }

    @Test
    void echoesA50MiBChunkedBodyChunked() throws Exception {
        echo50MiB(true);
    }

    /** Writes the body on one thread and reads the echo on another, so neither side can buffer it all. */
    private void echo50MiB(boolean chunked) throws Exception {
        long size = 50L << 20;
        byte[] block = Sha256.patternBlock(64 * 1024);
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            RawHttp.write(out, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-test\r\n"
                    + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + size + "\r\n") + "\r\n");
            Future<?> writer = threads.submit(() -> {
                for (long left = size; left > 0; left -= block.length) {
                    if (chunked) {
                        out.write((Integer.toHexString(block.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    }
                    out.write(block, 0, (int) Math.min(block.length, left));
                    if (chunked) {
                        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    }
                }
                if (chunked) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                }
                out.flush();
                return null;
            });
            CompletableFuture<RawHttp.Head> headSeen = new CompletableFuture<>();
            Future<String> reader = threads.submit(() -> {
                RawHttp.Head head = RawHttp.readHead(in);
                headSeen.complete(head);
                RawHttp.DigestSink sink = new RawHttp.DigestSink();
                assertThat(RawHttp.readBody(in, head, sink)).isEqualTo(size);
                return sink.hex();
            });

            RawHttp.Head head = headSeen.get(30, TimeUnit.SECONDS);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("content-type")).isEqualTo("application/x-test");
            if (chunked) {
                assertThat(head.chunked()).isTrue();
            } else {
                assertThat(head.header("content-length")).isEqualTo(Long.toString(size));
            }
            assertThat(reader.get(60, TimeUnit.SECONDS)).isEqualTo(Sha256.ofPattern(size));
            writer.get(10, TimeUnit.SECONDS);

            RawHttp.write(out, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(RawHttp.readBodyText(in, RawHttp.readHead(in))).isEqualTo("ok\n");
        }
    }
}
