package dev.usher.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * One keep-alive connection to a backend, and the last handler of its pipeline. While leased it hands every event
 * to its {@link UpstreamListener}; while idle in the pool it keeps a read pending, so that a backend closing an
 * idle connection is noticed at once and the connection leaves the pool (instead of failing the next request).
 *
 * <p>Auto-read stays off for the connection's whole life: reads are asked for one at a time (the exchange asks while
 * the client keeps up). The idle read stays pending into the next lease, where the exchange's own read finds it
 * already armed: no epoll interest change per request (toggling auto-read cost two {@code epoll_ctl} calls each).
 *
 * <p>To an HTTP/2 backend, the "connection" an exchange leases is one stream of the backend's multiplexed connection
 * ({@link H2Connection}): the same events, in HTTP objects, from the stream's child channel; it is never reused.
 */
public final class UpstreamConnection extends ChannelInboundHandlerAdapter {
    private final ConnectionOwner pool;
    private Channel channel;
    private UpstreamListener listener;
    private int uses;
    private long idleSinceNanos;
    /** How long the backend keeps this connection open when idle (its Keep-Alive timeout), less a safety second. */
    private long idleLimitNanos = Long.MAX_VALUE;
    /** Inside a read batch from the backend (between the first channelRead and channelReadComplete). */
    private boolean reading;
    private boolean releaseAfterRead;

    UpstreamConnection(ConnectionOwner pool) {
        this.pool = pool;
    }

    /** A stream of a multiplexed connection that already carried others: {@link #reused()} says so. */
    UpstreamConnection(ConnectionOwner pool, boolean onReusedConnection) {
        this.pool = pool;
        this.uses = onReusedConnection ? 1 : 0;
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
        return pool.upstream();
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
        if (reading) {
            // Not back in the pool until the decoder has handed over everything in this batch: bytes after the
            // response (a misbehaving backend) must find the connection idle, and be closed, not be taken as the
            // answer to the next request.
            releaseAfterRead = true;
        } else {
            pool.release(this);
        }
    }

    /**
     * Notes the backend's {@code Keep-Alive: timeout=N}: an idle connection is not reused after N−1 seconds, so a
     * request never races the backend closing it (Node.js closes after 5 s, gunicorn after 2 s).
     */
    public void keepAliveTimeout(String keepAliveHeader) {
        if (keepAliveHeader == null) {
            return;
        }
        int at = keepAliveHeader.toLowerCase(java.util.Locale.ROOT).indexOf("timeout=");
        if (at < 0) {
            return;
        }
        int end = at + 8;
        while (end < keepAliveHeader.length() && Character.isDigit(keepAliveHeader.charAt(end))) {
            end++;
        }
        if (end == at + 8 || end - at - 8 > 6) {
            return;
        }
        long seconds = Long.parseLong(keepAliveHeader.substring(at + 8, end));
        idleLimitNanos = Math.max(0, seconds - 1) * 1_000_000_000L;
    }

    /** True when this idle connection has outlived what the backend said it keeps idle connections for. */
    boolean idleTooLong(long nowNanos) {
        return nowNanos - idleSinceNanos >= idleLimitNanos;
    }

    /** Closes the connection; it is never reused. */
    public void close() {
        listener = null;
        channel.close();
    }

    void leased() {
        uses++;
    }

    void idle(long nowNanos) {
        idleSinceNanos = nowNanos;
        channel.read();
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
        reading = true;
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
        reading = false;
        if (releaseAfterRead) {
            releaseAfterRead = false;
            pool.release(this);
            return;
        }
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
