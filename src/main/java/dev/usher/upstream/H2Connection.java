package dev.usher.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One multiplexed HTTP/2 connection to a backend ({@code h2c://}, or {@code https://} where ALPN chose h2), owned
 * by one event loop like the client connections whose requests it carries. Each request gets a stream of its own,
 * a child channel that speaks HTTP objects ({@code Http2StreamFrameToHttpObjectCodec}), so that the proxy exchange
 * drives it exactly like an HTTP/1.1 connection; flow control works per stream both ways (the stream is read only
 * while the client keeps up, and Netty returns window as it is read).
 *
 * <p>Streams beyond the backend's {@code SETTINGS_MAX_CONCURRENT_STREAMS} wait in the codec until one ends. After
 * the backend's GOAWAY, new requests go to a new connection and this one closes when its streams are done; with no
 * stream for the pool's idle timeout, it closes.
 *
 * <p>Threading: its event loop only.
 */
final class H2Connection extends ChannelInboundHandlerAdapter implements ConnectionOwner {
    /** Per-stream receive window: what one stalled stream may hold unread (Netty's default). */
    private static final int STREAM_WINDOW = 64 * 1024;
    /** Connection receive window: large enough that a few stalled streams do not hold the others back. */
    private static final int CONNECTION_WINDOW = 8 * 1024 * 1024;
    private static final int MAX_HEADER_LIST = 64 * 1024;

    private final LoopPool pool;
    private final Consumer<H2Connection> gone;
    private Channel channel;
    private int activeStreams;
    private long streamsOpened;
    private boolean goingAway;
    private long idleGeneration;

    private H2Connection(LoopPool pool, Consumer<H2Connection> gone) {
        this.pool = pool;
        this.gone = gone;
    }

    /**
     * Makes {@code ch} (connected, TLS done if any) an HTTP/2 client connection: the frame codec, the stream
     * multiplexer and this handler. {@code gone} hears when it can take no more streams (GOAWAY or closed).
     */
    static H2Connection install(Channel ch, LoopPool pool, Consumer<H2Connection> gone) {
        H2Connection connection = new H2Connection(pool, gone);
        ch.pipeline().addLast("h2", Http2FrameCodecBuilder.forClient()
                .initialSettings(Http2Settings.defaultSettings().pushEnabled(false).initialWindowSize(STREAM_WINDOW)
                        .maxHeaderListSize(MAX_HEADER_LIST))
                .encoderEnforceMaxConcurrentStreams(true)
                .validateHeaders(true)
                .build());
        ch.pipeline().addLast("h2-streams", new Http2MultiplexHandler(RefusePush.INSTANCE));
        ch.pipeline().addLast("h2-connection", connection);
        ch.config().setAutoRead(true);
        return connection;
    }

    /** True while new streams may be opened on it. */
    boolean takesStreams() {
        return channel != null && channel.isActive() && !goingAway;
    }

    Channel channel() {
        return channel;
    }

    /** A new stream for one exchange, its pipeline ending in an {@link UpstreamConnection}. */
    Future<UpstreamConnection> openStream() {
        Promise<UpstreamConnection> promise = channel.eventLoop().newPromise();
        UpstreamConnection conn = new UpstreamConnection(this, streamsOpened > 0);
        streamsOpened++;
        activeStreams++;
        idleGeneration++;
        new Http2StreamChannelBootstrap(channel)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<Http2StreamChannel>() {
                    @Override
                    protected void initChannel(Http2StreamChannel stream) {
                        stream.pipeline().addLast("h2-http", new Http2StreamFrameToHttpObjectCodec(false, true));
                        stream.pipeline().addLast("h2-heads", new BackendStreamHeads());
                        stream.pipeline().addLast("upstream", conn);
                        stream.closeFuture().addListener(f -> streamEnded());
                    }
                })
                .open()
                .addListener((Future<Http2StreamChannel> f) -> {
                    if (f.isSuccess()) {
                        conn.leased();
                        promise.setSuccess(conn);
                    } else {
                        streamEnded();
                        promise.setFailure(f.cause());
                    }
                });
        return promise;
    }

    private void streamEnded() {
        activeStreams--;
        if (activeStreams > 0) {
            return;
        }
        if (goingAway) {
            channel.close();
            return;
        }
        long generation = ++idleGeneration;
        channel.eventLoop().schedule(() -> {
            if (activeStreams == 0 && generation == idleGeneration) {
                channel.close();
            }
        }, pool.idleTimeoutMillis(), TimeUnit.MILLISECONDS);
    }

    /** No new streams; closes once the open ones are done. */
    void close() {
        goingAway = true;
        if (activeStreams == 0 && channel != null) {
            channel.close();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (channel.isActive()) {
            widenConnectionWindow(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        widenConnectionWindow(ctx);
        ctx.fireChannelActive();
    }

    private static void widenConnectionWindow(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - STREAM_WINDOW), ctx.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2GoAwayFrame) {
            stopTakingStreams();
        }
        // SETTINGS, PING and GOAWAY are the codec's business; nothing else reaches the connection itself.
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stopTakingStreams();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A connection error: the codec sent GOAWAY; the streams hear of it and fail their exchanges.
        stopTakingStreams();
        ctx.close();
    }

    private void stopTakingStreams() {
        if (!goingAway) {
            goingAway = true;
            gone.accept(this);
        }
        if (activeStreams == 0 && channel.isActive()) {
            channel.close();
        }
    }

    // ---------------------------------------------------------------- ConnectionOwner (its streams)

    @Override
    public void release(UpstreamConnection stream) {
        // Both ends of the stream are done, so it is closed already; should it not be, it is cancelled.
        stream.channel().close();
    }

    @Override
    public void remove(UpstreamConnection stream) {
        // The stream's end is counted by its close future.
    }

    @Override
    public String upstream() {
        return pool.upstream().toString();
    }

    /** Streams the backend starts itself (server push, which Usher's SETTINGS turn off) are closed at once. */
    @ChannelHandler.Sharable
    private static final class RefusePush extends ChannelInboundHandlerAdapter {
        static final RefusePush INSTANCE = new RefusePush();

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.close();
        }
    }
}
