package dev.usher.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * One keep-alive connection to a backend, and the last handler of its pipeline. While leased it hands every event
 * to its {@link UpstreamListener}; while idle in the pool it reads with auto-read on, so that a backend closing an
 * idle connection is noticed at once and the connection leaves the pool (instead of failing the next request).
 */
public final class UpstreamConnection extends ChannelInboundHandlerAdapter {
    private final LoopPool pool;
    private Channel channel;
    private UpstreamListener listener;
    private int uses;
    private long idleSinceNanos;

    UpstreamConnection(LoopPool pool) {
        this.pool = pool;
    }

    /** The backend channel. */
    public Channel channel() {
        return channel;
    }

    /** True when this connection served at least one earlier request (a stale keep-alive is possible). */
    public boolean reused() {
        return uses > 1;
    }

    /** Where this connection goes: the pool's backend address. */
    public String upstream() {
        return pool.upstream().authority();
    }

    /** Starts delivering events to {@code listener}; the caller owns the connection until release or close. */
    public void attach(UpstreamListener listener) {
        this.listener = listener;
    }

    /**
     * Gives the connection back for reuse. Only call this when the last response was read completely and the last
     * request was written completely: anything else leaves bytes of one exchange in front of the next.
     */
    public void release() {
        listener = null;
        pool.release(this);
    }

    /** Closes the connection; it is never reused. */
    public void close() {
        listener = null;
        channel.close();
    }

    void leased() {
        uses++;
        channel.config().setAutoRead(false);
    }

    void idle(long nowNanos) {
        idleSinceNanos = nowNanos;
        channel.config().setAutoRead(true);
    }

    long idleSinceNanos() {
        return idleSinceNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        UpstreamListener l = listener;
        if (l != null) {
            l.upstreamRead(msg);
        } else {
            // Bytes from a backend nobody asked: the connection can no longer be trusted for reuse.
            ReferenceCountUtil.release(msg);
            ctx.close();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        if (l != null) {
            l.upstreamReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        UpstreamListener l = listener;
        if (l != null) {
            l.upstreamWritabilityChanged(ctx.channel().isWritable());
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        pool.remove(this);
        UpstreamListener l = listener;
        listener = null;
        if (l != null) {
            l.upstreamClosed(null);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        UpstreamListener l = listener;
        listener = null;
        ctx.close();
        if (l != null) {
            l.upstreamClosed(cause);
        }
    }
}
