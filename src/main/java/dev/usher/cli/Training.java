package dev.usher.cli;

import dev.usher.Usher;

import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.LocalCa;
import dev.usher.cert.Pem;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.whoami.Whoami;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code usher train}: a short, self-contained run of the usual request path (an in-process Usher in front of an
 * in-process whoami, on loopback ports the kernel picks), for the launcher to record an AOT cache from
 * ({@code -XX:AOTCacheOutput}). The classes it loads and links are the ones a real start-up needs, so the next
 * start skips that work. It covers HTTPS too (a local-CA site in a throw-away data directory, served by BoringSSL
 * when it loads) unless told {@code plain}: every cached class is loaded at each start, so the HTTPS classes cost a
 * plain-HTTP-only setup about 5 MiB and save an HTTPS one about as much (BENCHMARKS.md, "Footprint, 2026-11-30
 * (second pass)").
 */
final class Training {
    private static final int REQUESTS = 3_000;
    private static final int TLS_CONNECTIONS = 20;
    private static final int REQUESTS_PER_TLS_CONNECTION = 50;
    private static final int H2_CONNECTIONS = 5;
    private static final int REQUESTS_PER_H2_CONNECTION = 50;

    private Training() {
    }

    /** {@code usher train [plain]}: {@code plain} leaves HTTPS out. */
    static int command(String[] args, PrintStream err) {
        boolean https = !(args.length == 1 && args[0].equals("plain"));
        if (args.length > 1 || (args.length == 1 && https)) {
            err.println("usher: usage: usher train [plain]");
            return 2;
        }
        try {
            return run(https);
        } catch (Exception e) {
            err.println("usher: training run failed: " + e);
            return 1;
        }
    }

    /** Trains plain HTTP, and HTTPS unless {@code https} is false. */
    static int run(boolean https) throws Exception {
        Path data = Files.createTempDirectory("usher-train"); // the local CA and certificate of this run only
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "training")) {
            String yaml = """
                    listen: {http: "127.0.0.1:0", https: %3$s}
                    data: "%2$s"
                    admin: off
                    sites:
                      http://plain.localhost: 127.0.0.1:%1$d
                      "http://*.localhost": {to: 127.0.0.1:%1$d, headers: {X-Trained: "yes"}, rate_limit: {requests: 100000, per: 1s}}
                      secure.test: {to: 127.0.0.1:%1$d, tls: %4$s}
                    """.formatted(backend.port(), data, https ? "\"127.0.0.1:0\"" : "off", https ? "internal" : "off");
            if (https) {
                yaml += certificateFilesSite(data, backend.port());
            }
            UsherConfig config = ConfigLoader.parse(yaml, "<training>");
            Usher usher = Usher.start(config, 1);
            try {
                int port = usher.httpAddress().getPort();
                exercise(port, "plain.localhost", "");
                exercise(port, "app.localhost", "Accept-Encoding: gzip\r\n");
                notFound(port);
                if (https) {
                    exerciseTls(usher, "secure.test");
                    exerciseH2(usher, "files.test");
                }
            } finally {
                usher.close();
            }
        } finally {
            deleteTree(data);
        }
        return 0;
    }

    /**
     * HTTP/1.1 over TLS with the site's name as SNI: a few handshakes, keep-alive requests on each. The client is
     * Netty's, on BoringSSL like the server, so the cache holds no JDK TLS classes that Usher itself never uses.
     */
    private static void exerciseTls(Usher usher, String host) throws Exception {
        SslContext tls = SslContextBuilder.forClient()
                .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                .trustManager(InsecureTrustManagerFactory.INSTANCE) // the certificate this run's own CA just made
                .build();
        int port = usher.httpsAddress().getPort();
        for (int c = 0; c < TLS_CONNECTIONS; c++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Channel channel = new Bootstrap().group(usher.eventLoops()).channel(usher.transport().socketChannel())
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), host, port), new HttpClientCodec(),
                                    new KeepAliveRequests(host, REQUESTS_PER_TLS_CONNECTION, done));
                        }
                    })
                    .connect("127.0.0.1", port).sync().channel();
            try {
                done.get(10, TimeUnit.SECONDS);
            } finally {
                channel.close().sync();
            }
        }
    }

    /**
     * A site served from {@code tls: {cert, key}} files (a local-CA certificate written as PEM), so that reading and
     * checking such files is trained as well.
     */
    private static String certificateFilesSite(Path data, int backendPort) throws Exception {
        CertifiedKey issued = LocalCa.open(new CertStore(data.resolve("files-ca"))).issue("files.test");
        Path cert = data.resolve("files.crt");
        Path key = data.resolve("files.key");
        Files.writeString(cert, Pem.certificates(issued.chain()));
        Files.writeString(key, Pem.privateKey(issued.key()));
        return "  files.test: {to: 127.0.0.1:%d, tls: {cert: \"%s\", key: \"%s\"}}\n".formatted(backendPort, cert, key);
    }

    /**
     * HTTP/2 over TLS (ALPN h2), as browsers and curl ask for HTTPS: a few connections, one stream after another on
     * each, so the HTTP/2 classes are in the cache too.
     */
    private static void exerciseH2(Usher usher, String host) throws Exception {
        SslContext tls = SslContextBuilder.forClient()
                .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                .trustManager(InsecureTrustManagerFactory.INSTANCE) // the certificate this run's own CA just made
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, "h2"))
                .build();
        int port = usher.httpsAddress().getPort();
        for (int c = 0; c < H2_CONNECTIONS; c++) {
            Channel channel = new Bootstrap().group(usher.eventLoops()).channel(usher.transport().socketChannel())
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), host, port),
                                    Http2FrameCodecBuilder.forClient().build(),
                                    new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
                        }
                    })
                    .connect("127.0.0.1", port).sync().channel();
            try {
                for (int r = 0; r < REQUESTS_PER_H2_CONNECTION; r++) {
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    Http2StreamChannel stream = new Http2StreamChannelBootstrap(channel)
                            .handler(new StreamAnswer(done)).open().sync().getNow();
                    stream.writeAndFlush(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET")
                            .scheme("https").authority(host).path("/train").add("accept-encoding", "gzip"), true));
                    done.get(10, TimeUnit.SECONDS);
                }
            } finally {
                channel.close().sync();
            }
        }
    }

    /** A training client handler: its future fails when the channel closes early or fails. */
    private abstract static class TrainingClient extends ChannelInboundHandlerAdapter {
        final CompletableFuture<Void> done;

        TrainingClient(CompletableFuture<Void> done) {
            this.done = done;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IOException("closed during training"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }

    /** Completes when the answer on one HTTP/2 stream has ended. */
    private static final class StreamAnswer extends TrainingClient {
        StreamAnswer(CompletableFuture<Void> done) {
            super(done);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean end = msg instanceof Http2HeadersFrame headers && headers.isEndStream()
                    || msg instanceof Http2DataFrame data && data.isEndStream();
            ReferenceCountUtil.release(msg);
            if (end) {
                done.complete(null);
            }
        }
    }

    /** Sends GETs on one connection, each when the answer to the previous one has ended. */
    private static final class KeepAliveRequests extends TrainingClient {
        private final String host;
        private int left;

        KeepAliveRequests(String host, int requests, CompletableFuture<Void> done) {
            super(done);
            this.host = host;
            this.left = requests;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            send(ctx); // the TLS handler holds it until the handshake is done
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean last = msg instanceof LastHttpContent;
            ReferenceCountUtil.release(msg);
            if (last && --left == 0) {
                done.complete(null);
            } else if (last) {
                send(ctx);
            }
        }

        private void send(ChannelHandlerContext ctx) {
            FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/train");
            request.headers().set(HttpHeaderNames.HOST, host).set(HttpHeaderNames.ACCEPT_ENCODING, "gzip");
            ctx.writeAndFlush(request);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Keep-alive requests on one connection, reading each answer by its Content-Length or chunks. */
    private static void exercise(int port, String host, String extra) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] request = ("GET /train HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < REQUESTS / 2; i++) {
                out.write(request);
                out.flush();
                readResponse(in);
            }
        }
    }

    private static void notFound(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: unknown.example\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getInputStream().readAllBytes();
        }
    }

    private static void readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed during training");
            }
            head.append((char) c);
        }
        String lower = head.toString().toLowerCase(java.util.Locale.ROOT);
        int cl = lower.indexOf("content-length:");
        if (cl >= 0) {
            int end = lower.indexOf("\r\n", cl);
            in.readNBytes(Integer.parseInt(lower.substring(cl + 15, end).trim()));
            return;
        }
        // chunked
        while (true) {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new IOException("connection closed during training");
                }
                line.append((char) c);
            }
            int size = Integer.parseInt(line.toString().trim().split(";")[0], 16);
            in.readNBytes(size + 2);
            if (size == 0) {
                return;
            }
        }
    }
}
