package dev.usher.admin;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Slowloris defence of the admin endpoint. The read timeout alone lets a client keep a connection forever by sending
 * one byte a minute; here, once the first byte of a request arrives, the whole request must arrive within
 * {@code base}, plus one second per {@link #BYTES_PER_SECOND} bytes its Content-Length announces (a restore upload
 * on a slow line), else the connection is closed. Trickling bytes does not extend it.
 *
 * <p>Three parts of one pipeline: this handler first (raw bytes: arms the timer), {@link #head()} after the HTTP
 * decoder (the announced length extends it), {@link #completion()} after the aggregator (the whole request: disarmed).
 * One instance per connection; everything runs on its event loop.
 */
final class AdminRequestDeadline extends ChannelInboundHandlerAdapter {
    static final Duration BASE = Duration.ofSeconds(30);
    static final long BYTES_PER_SECOND = 64 * 1024;

    private final long baseMillis;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> timer;

    AdminRequestDeadline(Duration base) {
        this.baseMillis = base.toMillis();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (timer == null) {
            arm(baseMillis);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        disarm();
        ctx.fireChannelInactive();
    }

    /** After the HTTP decoder: a request head that announces a body gets time to send it. */
    ChannelHandler head() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (msg instanceof HttpRequest request && timer != null) {
                    long length = HttpUtil.getContentLength(request, 0L);
                    if (length > 0) {
                        disarm();
                        arm(baseMillis + length / BYTES_PER_SECOND * 1000);
                    }
                }
                c.fireChannelRead(msg);
            }
        };
    }

    /** After the aggregator: the whole request is here; the next one's first byte arms the timer again. */
    ChannelHandler completion() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext c, Object msg) {
                if (msg instanceof FullHttpRequest) {
                    disarm();
                }
                c.fireChannelRead(msg);
            }
        };
    }

    private void arm(long millis) {
        timer = ctx.executor().schedule(() -> {
            timer = null;
            ctx.close();
        }, millis, TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
