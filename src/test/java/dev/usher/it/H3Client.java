package dev.usher.it;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3GoAwayFrame;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;

import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small HTTP/3 client on Netty's QUIC codec, for tests: one QUIC connection to 127.0.0.1:PORT with SNI
 * {@code serverName}, trusting any certificate (the tests look at it instead). Requests run as concurrent request
 * streams; request bodies are written piece by piece, each piece after the previous one was taken (QUIC flow
 * control holds them back), and response bodies are hashed as they arrive, not kept.
 */
final class H3Client implements AutoCloseable {
    /** What came back on one request stream. */
    record Response(int status, Http3Headers headers, long bodyLength, String bodySha256, String bodyStart,
                    Http3Headers trailers) {
    }

    private final EventLoopGroup group;
    private final Channel udp;
    final QuicChannel quic;
    /** GOAWAY frames received on the server's control stream. */
    private final AtomicLong goAways;
    private final String authority;

    private H3Client(EventLoopGroup group, Channel udp, QuicChannel quic, String authority, AtomicLong goAways) {
        this.group = group;
        this.udp = udp;
        this.quic = quic;
        this.authority = authority;
        this.goAways = goAways;
    }

    static H3Client connect(int port, String serverName) throws Exception {
        double dropInbound = Double.parseDouble(System.getProperty("h3client.dropInbound", "0"));
        return connect(port, serverName, dropInbound > 0 ? InboundLoss.random(dropInbound) : null);
    }

    /**
     * A client on a lossy link: every {@code dropEvery}-th datagram arriving from the server is dropped before QUIC
     * sees it (deterministic, unlike the {@code h3client.dropInbound} property's random fraction).
     */
    static H3Client connectDroppingEvery(int port, String serverName, int dropEvery) throws Exception {
        return connect(port, serverName, InboundLoss.every(dropEvery));
    }

    /** A client whose datagrams come from {@code localAddress} (such as 127.0.0.2 on the loopback). */
    static H3Client connectFrom(String localAddress, int port, String serverName) throws Exception {
        return connect(new InetSocketAddress(localAddress, 0), port, serverName, null);
    }

    private static H3Client connect(int port, String serverName, InboundLoss loss) throws Exception {
        return connect(new InetSocketAddress(0), port, serverName, loss);
    }

    private static H3Client connect(InetSocketAddress local, int port, String serverName, InboundLoss loss)
            throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            QuicSslContext ssl = QuicSslContextBuilder.forClient()
                    .trustManager(InsecureTrustManagerFactory.INSTANCE)
                    .applicationProtocols(Http3.supportedApplicationProtocols()).build();
            ChannelHandler codec = Http3.newQuicClientCodecBuilder()
                    .sslEngineProvider(q -> ssl.newEngine(q.alloc(), serverName, port))
                    .maxIdleTimeout(30, TimeUnit.SECONDS)
                    .initialMaxData(16 * 1024 * 1024)
                    .initialMaxStreamDataBidirectionalLocal(1024 * 1024)
                    .build();
            Channel udp = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                    .handler(loss != null ? loss.before(codec) : codec)
                    .bind(local).sync().channel();
            AtomicLong goAways = new AtomicLong();
            ChannelHandler control = new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    if (msg instanceof Http3GoAwayFrame) {
                        goAways.incrementAndGet();
                    }
                    ReferenceCountUtil.release(msg);
                }

                @Override
                public boolean isSharable() {
                    return true;
                }
            };
            QuicChannel quic = QuicChannel.newBootstrap(udp)
                    .handler(new Http3ClientConnectionHandler(control, null, null, null, true))
                    .remoteAddress(new InetSocketAddress("127.0.0.1", port))
                    .connect().get(20, TimeUnit.SECONDS);
            return new H3Client(group, udp, quic, serverName + ":" + port, goAways);
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    long goAwaysReceived() {
        return goAways.get();
    }

    /** The certificate the server showed in this connection's handshake. */
    X509Certificate peerCertificate() throws Exception {
        return (X509Certificate) quic.sslEngine().getSession().getPeerCertificates()[0];
    }

    CompletableFuture<Response> get(String path) {
        return send("GET", path, null);
    }

    /** Sends a request; {@code body} (may be null) goes in 64 KiB DATA frames. */
    CompletableFuture<Response> send(String method, String path, byte[] body) {
        return send(method, path, body, authority);
    }

    /**
     * Sends a request head announcing {@code contentLength} bytes of body, with {@code extra} as one more header
     * (name, value; may be null), and then nothing: neither body nor end of stream.
     */
    CompletableFuture<Response> sendHeadOnly(String path, long contentLength, String[] extra) {
        CompletableFuture<Response> result = new CompletableFuture<>();
        quic.eventLoop().execute(() -> Http3.newRequestStream(quic, new ResponseReader(result)).addListener(f -> {
            if (!f.isSuccess()) {
                result.completeExceptionally(f.cause());
                return;
            }
            DefaultHttp3HeadersFrame head = new DefaultHttp3HeadersFrame();
            head.headers().method("POST").path(path).authority(authority).scheme("https")
                    .setLong("content-length", contentLength);
            if (extra != null) {
                head.headers().set(extra[0], extra[1]);
            }
            ((QuicStreamChannel) f.getNow()).writeAndFlush(head).addListener(w -> failOn(w, result));
        }));
        return result;
    }

    /** Sends a request naming {@code host} in :authority (which may differ from the SNI name). */
    CompletableFuture<Response> send(String method, String path, byte[] body, String host) {
        return send(method, path, body, host, new String[0]);
    }

    /** Sends a request with {@code extra} headers (name, value, name, value...) after the pseudo-headers. */
    CompletableFuture<Response> send(String method, String path, byte[] body, String host, String... extra) {
        CompletableFuture<Response> result = new CompletableFuture<>();
        quic.eventLoop().execute(() -> open(method, path, body, host, extra, result));
        return result;
    }

    /**
     * Opens a request stream, sends a GET head and, right after, resets the stream (RESET_STREAM and STOP_SENDING,
     * as a browser cancelling a request): completes when the stream is closed, or fails when it cannot be opened.
     */
    CompletableFuture<Void> getAndCancel(String path) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        quic.eventLoop().execute(() -> {
            if (!quic.isActive()) {
                result.completeExceptionally(new IllegalStateException("QUIC connection closed"));
                return;
            }
            if (quic.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) == 0) {
                quic.eventLoop().schedule(() -> getAndCancel(path).whenComplete((v, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(null);
                    }
                }), 1, TimeUnit.MILLISECONDS);
                return;
            }
            Http3.newRequestStream(quic, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                }
            }).addListener(f -> {
                if (!f.isSuccess()) {
                    result.completeExceptionally(f.cause());
                    return;
                }
                QuicStreamChannel stream = (QuicStreamChannel) f.getNow();
                DefaultHttp3HeadersFrame head = new DefaultHttp3HeadersFrame();
                head.headers().method("GET").path(path).authority(authority).scheme("https");
                // H3_REQUEST_CANCELLED both ways, as a browser cancels a request
                stream.writeAndFlush(head).addListener(w -> stream.shutdown(0x10c)
                        .addListener(s -> stream.close().addListener(c -> result.complete(null))));
            });
        });
        return result;
    }

    /**
     * Opens the request stream once the server allows another one: like a browser, the client waits for stream
     * credit (MAX_STREAMS) instead of failing with STREAM_LIMIT_ERROR. On the connection's event loop.
     */
    private void open(String method, String path, byte[] body, String host, String[] extra,
                      CompletableFuture<Response> result) {
        if (!quic.isActive()) {
            result.completeExceptionally(new IllegalStateException("QUIC connection closed"));
            return;
        }
        if (quic.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) == 0) {
            quic.eventLoop().schedule(() -> open(method, path, body, host, extra, result), 1,
                    TimeUnit.MILLISECONDS);
            return;
        }
        ResponseReader reader = new ResponseReader(result);
        Http3.newRequestStream(quic, reader).addListener(f -> {
            if (!f.isSuccess()) {
                result.completeExceptionally(f.cause());
                return;
            }
            QuicStreamChannel stream = (QuicStreamChannel) f.getNow();
            DefaultHttp3HeadersFrame head = new DefaultHttp3HeadersFrame();
            head.headers().method(method).path(path).authority(host).scheme("https");
            if (body != null) {
                head.headers().setLong("content-length", body.length);
            }
            for (int i = 0; i + 1 < extra.length; i += 2) {
                head.headers().add(extra[i], extra[i + 1]);
            }
            if (body == null || body.length == 0) {
                stream.writeAndFlush(head).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT)
                        .addListener(w -> failOn(w, result));
            } else {
                stream.write(head);
                writeBody(stream, body, 0, result);
            }
        });
    }

    private static void writeBody(QuicStreamChannel stream, byte[] body, int from, CompletableFuture<Response> result) {
        int size = Math.min(64 * 1024, body.length - from);
        ByteBuf piece = Unpooled.wrappedBuffer(body, from, size);
        int next = from + size;
        stream.writeAndFlush(new DefaultHttp3DataFrame(piece)).addListener(w -> {
            if (!w.isSuccess()) {
                result.completeExceptionally(w.cause());
            } else if (next < body.length) {
                writeBody(stream, body, next, result);
            } else {
                stream.shutdownOutput();
            }
        });
    }

    private static void failOn(io.netty.util.concurrent.Future<?> written, CompletableFuture<Response> result) {
        if (!written.isSuccess()) {
            result.completeExceptionally(written.cause());
        }
    }

    /**
     * Drops some of the datagrams arriving for the client before QUIC sees them, as a lossy link (or a starved
     * machine's loopback UDP) does: a random fraction (system property {@code h3client.dropInbound}, e.g. 0.04; off
     * by default) or every n-th one.
     */
    private static final class InboundLoss {
        private final java.util.function.BooleanSupplier drop;

        private InboundLoss(java.util.function.BooleanSupplier drop) {
            this.drop = drop;
        }

        static InboundLoss random(double fraction) {
            return new InboundLoss(() -> java.util.concurrent.ThreadLocalRandom.current().nextDouble() < fraction);
        }

        static InboundLoss every(int n) {
            AtomicLong arrived = new AtomicLong();
            return new InboundLoss(() -> arrived.incrementAndGet() % n == 0);
        }

        /** The UDP channel's handler: the loss, then {@code codec}. */
        ChannelHandler before(ChannelHandler codec) {
            return new io.netty.channel.ChannelInitializer<Channel>() {
                @Override
                protected void initChannel(Channel udp) {
                    udp.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            if (drop.getAsBoolean()) {
                                ReferenceCountUtil.release(msg);
                            } else {
                                ctx.fireChannelRead(msg);
                            }
                        }
                    }, codec);
                }
            };
        }
    }

    /** Collects one response: status and headers, the body's length and SHA-256, trailers. */
    private static final class ResponseReader extends Http3RequestStreamInboundHandler {
        private final CompletableFuture<Response> result;
        private final MessageDigest digest;
        private final StringBuilder start = new StringBuilder();
        private Http3Headers headers;
        private Http3Headers trailers;
        private long length;

        ResponseReader(CompletableFuture<Response> result) {
            this.result = result;
            try {
                digest = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
            if (headers == null || headers.status() != null && headers.status().charAt(0) == '1') {
                headers = frame.headers();
            } else {
                trailers = frame.headers();
            }
            ReferenceCountUtil.release(frame);
        }

        @Override
        protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
            ByteBuf content = frame.content();
            length += content.readableBytes();
            if (start.length() < 4096) {
                start.append(content.toString(content.readerIndex(),
                        Math.min(content.readableBytes(), 4096), java.nio.charset.StandardCharsets.ISO_8859_1));
            }
            byte[] bytes = new byte[content.readableBytes()];
            content.readBytes(bytes);
            digest.update(bytes);
            ReferenceCountUtil.release(frame);
        }

        @Override
        protected void channelInputClosed(ChannelHandlerContext ctx) {
            if (headers == null) {
                result.completeExceptionally(new IllegalStateException("stream ended without a response"));
            } else {
                result.complete(new Response(Integer.parseInt(headers.status().toString()), headers, length,
                        HexFormat.of().formatHex(digest.digest()), start.toString(), trailers));
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            // Which end stopped matters when this fails: the state says whether the head and body came, and whether
            // the whole QUIC connection went (e.g. its idle timeout) with the response's end still missing.
            QuicStreamChannel stream = (QuicStreamChannel) ctx.channel();
            result.completeExceptionally(new IllegalStateException("stream closed before the response ended (stream "
                    + stream.streamId() + ", status " + (headers != null ? headers.status() : "none") + ", " + length
                    + " body bytes, connection " + (stream.parent().isActive() ? "open" : "closed") + ")"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.completeExceptionally(cause);
            ctx.close();
        }
    }

    @Override
    public void close() {
        quic.close().awaitUninterruptibly(5, TimeUnit.SECONDS); // CONNECTION_CLOSE out before the socket goes
        udp.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
