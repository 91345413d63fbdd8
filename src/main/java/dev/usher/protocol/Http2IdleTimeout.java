package dev.usher.protocol;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP/2 connection that has had no open stream for {@code timeouts.idle}. Sits after the frame codec, so
 * its close passes through the codec, which sends GOAWAY first. Streams are counted as their child channels open
 * and close ({@link #streamOpened}); a stream that is open but quiet (a long poll, a slow backend) keeps the
 * connection, since its own timeouts govern it.
 *
 * <p>Threading: the connection's event loop only; child channels share it, so their close listeners run there too.
 */
final class Http2IdleTimeout extends ChannelInboundHandlerAdapter {
    private final long idleNanos;
    private ChannelHandlerContext ctx;
    private int open;
    private long idleSince;
    private ScheduledFuture<?> timer;

    Http2IdleTimeout(long idleNanos) {
        this.idleNanos = idleNanos;
    }

    /** Counts {@code stream} (a child channel being initialized) until it closes. */
    void streamOpened(Channel stream) {
        open++;
        stream.closeFuture().addListener(f -> streamClosed());
    }

    /** Streams open now. */
    int openStreams() {
        return open;
    }

    private void streamClosed() {
        if (--open == 0) {
            idleSince = System.nanoTime();
            arm(idleNanos);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        idleSince = System.nanoTime();
        arm(idleNanos);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    /** Arms the timer unless one is armed already (it re-arms itself for a later deadline). */
    private void arm(long delayNanos) {
        if (timer == null && ctx != null && ctx.channel().isActive()) {
            timer = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        timer = null;
        if (open > 0 || !ctx.channel().isActive()) {
            return; // re-armed when the last stream closes
        }
        long left = idleSince + idleNanos - System.nanoTime();
        if (left > 0) {
            arm(left);
        } else {
            ctx.close(); // through the codec: GOAWAY(NO_ERROR), then the TCP close
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
