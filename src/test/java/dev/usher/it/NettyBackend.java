package dev.usher.it;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend built on Netty for what whoami does not speak: HTTPS (any certificate, optionally asking for a client
 * certificate) and HTTP/2, cleartext ({@code h2c}, prior knowledge) or chosen by ALPN. Over HTTP/1.1 it answers
 * {@code h1 METHOD PATH}; over HTTP/2 it follows gRPC's wire contract (length-prefixed messages, {@code grpc-status}
 * in trailers) for three methods of a service {@code test.Echo}: {@code Unary} echoes the request's message,
 * {@code Stream} answers with five messages sent one by one, anything else is a trailers-only error (status 12,
 * UNIMPLEMENTED); a non-gRPC request gets {@code h2 METHOD PATH}. It counts connections and TLS handshakes.
 */
final class NettyBackend implements AutoCloseable {
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger handshakes = new AtomicInteger();
    /** The answer line of every request served ({@code h1 GET /path}, {@code h2 POST /test.Echo/Unary}). */
    final Queue<String> served = new ConcurrentLinkedQueue<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel listener;

    private NettyBackend(SslContext tls, boolean h2c) throws InterruptedException {
        listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.incrementAndGet();
                        if (tls == null) {
                            if (h2c) {
                                http2(ch);
                            } else {
                                http1(ch);
                            }
                            return;
                        }
                        ch.pipeline().addLast(tls.newHandler(ch.alloc()));
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                                if (evt instanceof SslHandshakeCompletionEvent done && done.isSuccess()) {
                                    handshakes.incrementAndGet();
                                }
                                ctx.fireUserEventTriggered(evt);
                            }
                        });
                        ch.pipeline().addLast(new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                            @Override
                            protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                                    http2(ctx.channel());
                                } else {
                                    http1(ctx.channel());
                                }
                            }

                            @Override
                            protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close(); // Usher refused the certificate, or had none to give
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** HTTP/1.1 over TLS, or HTTP/2 when ALPN chooses it (the context's ALPN config decides what is offered). */
    static NettyBackend tls(SslContext tls) throws InterruptedException {
        return new NettyBackend(tls, false);
    }

    /** Cleartext HTTP/2 with prior knowledge. */
    static NettyBackend h2c() throws InterruptedException {
        return new NettyBackend(null, true);
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    private void http1(Channel ch) {
        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                new SimpleChannelInboundHandler<FullHttpRequest>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
                        String line = "h1 " + request.method() + " " + request.uri();
                        served.add(line);
                        byte[] body = line.getBytes(StandardCharsets.UTF_8);
                        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
                        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
                        ctx.writeAndFlush(response);
                    }
                });
    }

    private void http2(Channel ch) {
        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(),
                new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel stream) {
                        stream.pipeline().addLast(new GrpcStream());
                    }
                }));
    }

    /** A gRPC message: a zero compression flag, a four-byte length, the payload. */
    static byte[] grpcMessage(String payload) {
        byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
        ByteBuf buf = Unpooled.buffer(5 + bytes.length).writeByte(0).writeInt(bytes.length).writeBytes(bytes);
        return buf.array();
    }

    /** One request stream: collects the request, then answers it by method. */
    private final class GrpcStream extends ChannelInboundHandlerAdapter {
        private Http2Headers request;
        private final ByteBuf body = Unpooled.buffer();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean end = false;
            if (msg instanceof Http2HeadersFrame headers) {
                if (request == null) {
                    request = headers.headers();
                }
                end = headers.isEndStream();
            } else if (msg instanceof Http2DataFrame data) {
                body.writeBytes(data.content());
                end = data.isEndStream();
                data.release();
            }
            if (end) {
                answer(ctx);
            }
        }

        private void answer(ChannelHandlerContext ctx) {
            String path = request.path().toString();
            served.add("h2 " + request.method() + " " + path);
            CharSequence type = request.get("content-type");
            if (type == null || !type.toString().startsWith("application/grpc")) {
                byte[] text = ("h2 " + request.method() + " " + path).getBytes(StandardCharsets.UTF_8);
                ctx.write(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
                        .set("content-type", "text/plain").setInt("content-length", text.length)));
                ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(text), true));
                return;
            }
            Http2Headers head = new DefaultHttp2Headers().status("200").set("content-type", "application/grpc");
            // What reached the backend of the client's headers: gRPC needs te: trailers and its deadline.
            head.set("x-seen-te", String.valueOf(request.get("te")));
            head.set("x-seen-grpc-timeout", String.valueOf(request.get("grpc-timeout")));
            switch (path) {
                case "/test.Echo/Unary" -> {
                    ctx.write(new DefaultHttp2HeadersFrame(head));
                    ctx.write(new DefaultHttp2DataFrame(body.retainedDuplicate()));
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(trailers(0, null), true));
                }
                case "/test.Echo/Stream" -> {
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(head));
                    for (int i = 1; i <= 5; i++) {
                        ctx.writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(grpcMessage("part " + i))));
                    }
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(trailers(0, null), true));
                }
                default -> {
                    head.set("grpc-status", "12").set("grpc-message", "unknown method " + path);
                    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(head, true));
                }
            }
            body.release();
        }

        private Http2Headers trailers(int status, String message) {
            Http2Headers trailers = new DefaultHttp2Headers().set("grpc-status", String.valueOf(status));
            if (message != null) {
                trailers.set("grpc-message", message);
            }
            return trailers;
        }
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
