package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.handler.codec.quic.QuicStreamResetException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/3 under the shapes a careless or hostile client sends, through a real Usher to a real backend with Netty's
 * HTTP/3 client: many short requests of every body shape, connection-specific headers, a stream open/cancel flood.
 */
class Http3HardeningTest {
    @TempDir
    static Path dir;
    static Whoami backend;
    static Usher usher;
    /** Serves 200 MiB with blocking writes and counts what it got out: it stops when Usher stops reading. */
    static com.sun.net.httpserver.HttpServer bigBackend;
    static final java.util.concurrent.atomic.AtomicLong bigWritten = new java.util.concurrent.atomic.AtomicLong();
    static final long BIG = 200L * 1024 * 1024;

    @BeforeAll
    static void start() throws Exception {
        backend = Whoami.start("127.0.0.1", 0, "h3hard");
        bigBackend = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        bigBackend.createContext("/", exchange -> {
            exchange.sendResponseHeaders(200, BIG);
            byte[] chunk = new byte[64 * 1024];
            try (var out = exchange.getResponseBody()) {
                for (long sent = 0; sent < BIG; sent += chunk.length) {
                    out.write(chunk);
                    bigWritten.addAndGet(chunk.length);
                }
            } catch (java.io.IOException gone) {
                // the client went away
            }
        });
        bigBackend.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
        bigBackend.start();
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                  big.localhost: 127.0.0.1:%d
                timeouts: {header: 2s}
                """.formatted(dir.resolve("data"), backend.port(), bigBackend.getAddress().getPort());
        usher = Usher.start(ConfigLoader.parse(yaml, "h3hard.yaml"), 2, Retry.DEFAULT, Duration.ofMillis(500));
    }

    @AfterAll
    static void stop() throws Exception {
        usher.close();
        backend.close();
        bigBackend.stop(0);
    }

    static int port() {
        return usher.httpsAddress().getPort();
    }

    /**
     * GET, HEAD, and POST with an empty, a one-byte and a small body, many at once over many connections: every one
     * is answered, whichever packets the request's end (QUIC FIN) travels in.
     */
    @Test
    void manyShortRequestsOfEveryShapeAllComplete() throws Exception {
        int connections = 16;
        int perConnection = 250;
        int lanes = 8;
        List<H3Client> clients = new ArrayList<>();
        AtomicInteger ok = new AtomicInteger();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            List<CompletableFuture<Void>> all = new ArrayList<>();
            for (int c = 0; c < connections; c++) {
                H3Client client = H3Client.connect(port(), "app.localhost");
                clients.add(client);
                AtomicInteger sent = new AtomicInteger();
                for (int l = 0; l < lanes; l++) {
                    CompletableFuture<Void> lane = new CompletableFuture<>();
                    all.add(lane);
                    nextShape(client, sent, perConnection, ok, failures, lane);
                }
            }
            CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(180, TimeUnit.SECONDS);
        } finally {
            clients.forEach(H3Client::close);
        }
        assertThat(failures).isEmpty();
        assertThat(ok.get()).isEqualTo(connections * perConnection);
    }

    private static void nextShape(H3Client client, AtomicInteger sent, int max, AtomicInteger ok,
                                  List<String> failures, CompletableFuture<Void> lane) {
        int n = sent.getAndIncrement();
        if (n >= max) {
            lane.complete(null);
            return;
        }
        String method;
        byte[] body;
        switch (n % 5) {
            case 0 -> { method = "GET"; body = null; }
            case 1 -> { method = "HEAD"; body = null; }
            case 2 -> { method = "POST"; body = new byte[0]; }
            case 3 -> { method = "POST"; body = new byte[] {'x'}; }
            default -> { method = "POST"; body = "a small body".getBytes(StandardCharsets.US_ASCII); }
        }
        String path = "/shape-" + n;
        client.send(method, path, body).orTimeout(30, TimeUnit.SECONDS).whenComplete((r, e) -> {
            if (e == null && r.status() == 200
                    && (method.equals("HEAD") ? r.bodyLength() == 0 : r.bodyStart().contains(method + " " + path))) {
                ok.incrementAndGet();
            } else {
                failures.add(method + " " + path + " (" + (body == null ? "no" : body.length) + " body bytes): "
                        + (e != null ? e : r.status() + " " + r.bodyStart()));
            }
            nextShape(client, sent, max, ok, failures, lane);
        });
    }

    /**
     * RFC 9114 §4.2: a request with a connection-specific field (Connection, Keep-Alive, Proxy-Connection,
     * Transfer-Encoding, Upgrade, or TE other than "trailers") is malformed. Refused with 400 and never forwarded:
     * Transfer-Encoding next to Content-Length would reach an HTTP/1.1 backend as both, a request-smuggling shape.
     */
    @Test
    void connectionSpecificHeadersAreRefusedAndNotForwarded() throws Exception {
        long seen = backend.requestsSeen();
        String[][] malformed = {
                {"transfer-encoding", "chunked"},
                {"keep-alive", "timeout=5"},
                {"proxy-connection", "keep-alive"},
                {"upgrade", "websocket"},
                {"te", "trailers", "te", "gzip"}, // "trailers" is allowed alone, not next to another value
                {"connection", "keep-alive"},
                {"te", "gzip"},
        };
        try (H3Client client = H3Client.connect(port(), "app.localhost")) {
            for (String[] header : malformed) {
                CompletableFuture<H3Client.Response> answer = client.send("POST", "/smuggle",
                        "abc".getBytes(StandardCharsets.US_ASCII), "app.localhost:" + port(), header);
                // Either answer to a malformed request is right (RFC 9114 §4.1.2): Netty's codec itself resets the
                // stream (H3_MESSAGE_ERROR) for Connection and a first TE that is not "trailers"; Usher answers 400.
                int status;
                try {
                    status = answer.get(20, TimeUnit.SECONDS).status();
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).as(header[0]).isInstanceOf(QuicStreamResetException.class);
                    status = 400;
                }
                assertThat(status).as(header[0]).isEqualTo(400);
            }
            assertThat(backend.requestsSeen()).isEqualTo(seen);
            // TE: trailers is the one allowed value; it is forwarded (gRPC backends want to hear it), and nothing else of TE.
            H3Client.Response trailers = client.send("POST", "/te-trailers",
                    "abc".getBytes(StandardCharsets.US_ASCII), "app.localhost:" + port(), "te", "trailers")
                    .get(20, TimeUnit.SECONDS);
            assertThat(trailers.status()).isEqualTo(200);
            assertThat(trailers.bodyStart()).contains("POST /te-trailers").containsIgnoringCase("\nte: trailers\n");
        }
    }

    /**
     * Rapid reset (CVE-2023-44487) over HTTP/3: a client opening request streams and cancelling them at once makes
     * Usher start a backend exchange for each and abandon it (closing its backend connection). As for HTTP/2, past a
     * few hundred cancelled streams the connection is closed (H3_EXCESSIVE_LOAD).
     */
    @Test
    void aStreamOpenAndCancelFloodEndsTheConnection() throws Exception {
        long backendConnections = backend.acceptedConnections();
        try (H3Client client = H3Client.connect(port(), "app.localhost")) {
            int sent = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (sent < 5_000 && client.quic.isActive() && System.nanoTime() < deadline) {
                List<CompletableFuture<Void>> batch = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    batch.add(client.getAndCancel("/flood-" + sent++));
                }
                for (CompletableFuture<Void> f : batch) {
                    try {
                        f.get(5, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        break; // the connection was closed under it
                    }
                }
            }
            long closeDeadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (client.quic.isActive() && System.nanoTime() < closeDeadline) {
                Thread.sleep(50);
            }
            System.out.printf("HTTP/3 rapid reset: %d streams opened and cancelled, %d backend connections%n",
                    sent, backend.acceptedConnections() - backendConnections);
            assertThat(client.quic.isActive()).as("connection still open after %d cancelled streams", sent)
                    .isFalse();
            assertThat(sent).isLessThan(5_000);
        }
        // Other clients are served as before.
        try (H3Client other = H3Client.connect(port(), "app.localhost")) {
            assertThat(other.get("/after-flood").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }

    /**
     * A client that stops reading a 200 MiB download: QUIC flow control stops Usher's sends, the stream is not
     * writable, and Usher stops reading the backend, so what it holds stays near the windows and socket buffers
     * instead of the whole response. Then the client reads on and gets every byte.
     */
    @Test
    void aClientThatStopsReadingHoldsTheBackendInsteadOfFillingUsher() throws Exception {
        try (H3Client client = H3Client.connect(port(), "big.localhost")) {
            java.util.concurrent.atomic.AtomicLong received = new java.util.concurrent.atomic.AtomicLong();
            CompletableFuture<Long> done = new CompletableFuture<>();
            CompletableFuture<io.netty.handler.codec.quic.QuicStreamChannel> opened = new CompletableFuture<>();
            client.quic.eventLoop().execute(() -> io.netty.handler.codec.http3.Http3.newRequestStream(client.quic,
                    new io.netty.handler.codec.http3.Http3RequestStreamInboundHandler() {
                        @Override
                        public void handlerAdded(io.netty.channel.ChannelHandlerContext ctx) {
                            ctx.channel().config().setAutoRead(false); // the slow reader: reads nothing for now
                        }

                        @Override
                        protected void channelRead(io.netty.channel.ChannelHandlerContext ctx,
                                                   io.netty.handler.codec.http3.Http3HeadersFrame frame) {
                        }

                        @Override
                        protected void channelRead(io.netty.channel.ChannelHandlerContext ctx,
                                                   io.netty.handler.codec.http3.Http3DataFrame frame) {
                            received.addAndGet(frame.content().readableBytes());
                            frame.release();
                        }

                        @Override
                        protected void channelInputClosed(io.netty.channel.ChannelHandlerContext ctx) {
                            done.complete(received.get());
                            ctx.close();
                        }
                    }).addListener(f -> {
                        io.netty.handler.codec.quic.QuicStreamChannel stream =
                                (io.netty.handler.codec.quic.QuicStreamChannel) f.getNow();
                        io.netty.handler.codec.http3.DefaultHttp3HeadersFrame head =
                                new io.netty.handler.codec.http3.DefaultHttp3HeadersFrame();
                        head.headers().method("GET").path("/big").authority("big.localhost:" + port())
                                .scheme("https");
                        stream.writeAndFlush(head).addListener(
                                io.netty.handler.codec.quic.QuicStreamChannel.SHUTDOWN_OUTPUT);
                        opened.complete(stream);
                    }));
            io.netty.handler.codec.quic.QuicStreamChannel stream = opened.get(20, TimeUnit.SECONDS);
            Thread.sleep(3_000);
            long heldBack = bigWritten.get();
            System.out.printf("HTTP/3 slow reader: backend wrote %.1f MiB of %d MiB while the client read nothing%n",
                    heldBack / 1048576.0, BIG / 1048576);
            assertThat(heldBack).as("bytes the backend got out while the client read nothing")
                    .isLessThan(32L * 1024 * 1024);
            stream.eventLoop().execute(() -> stream.config().setAutoRead(true));
            stream.eventLoop().execute(stream::read);
            assertThat(done.get(120, TimeUnit.SECONDS)).isEqualTo(BIG);
        }
    }

    /**
     * Slowloris over HTTP/3: a request stream whose HEADERS frame trickles in a byte at a time (each packet keeps
     * the QUIC connection from idling out) is ended after {@code timeouts.header}, as an HTTP/1.1 request head is.
     */
    @Test
    void aRequestHeadThatTricklesInIsCutAfterTheHeaderTimeout() throws Exception {
        try (H3Client client = H3Client.connect(port(), "app.localhost")) {
            CompletableFuture<String> ended = new CompletableFuture<>();
            io.netty.handler.codec.quic.QuicStreamChannel stream = client.quic.createStream(
                    io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL,
                    new io.netty.channel.ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                            io.netty.util.ReferenceCountUtil.release(msg);
                        }

                        @Override
                        public void userEventTriggered(io.netty.channel.ChannelHandlerContext ctx, Object evt) {
                            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                                ended.complete("input ended");
                            }
                        }

                        @Override
                        public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
                            ended.complete(cause.toString());
                        }

                        @Override
                        public void channelInactive(io.netty.channel.ChannelHandlerContext ctx) {
                            ended.complete("closed");
                        }
                    }).get(20, TimeUnit.SECONDS);
            // HEADERS (type 1) announcing 40 bytes of field section, of which one byte comes every 400 ms.
            stream.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0x01, 40, 0x00})).sync();
            long started = System.nanoTime();
            for (int i = 0; i < 20 && !ended.isDone() && client.quic.isActive(); i++) {
                Thread.sleep(400);
                stream.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0x00}));
            }
            assertThat(ended).as("the trickling stream was ended by Usher").isDone();
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("HTTP/3 trickled head: ended (%s) after %.1f s%n", ended.getNow(""), seconds);
            // The connection itself goes on.
            assertThat(client.get("/after-trickle").get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }
}
