package dev.usher.proxy;

import dev.usher.config.Timeouts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Slowloris defence for one client connection, placed before the HTTP decoder so it sees raw bytes. Between requests
 * the connection may stay idle for {@code timeouts.idle}; once the first byte of a request arrives, the whole head
 * must arrive within {@code timeouts.header} (else 408 and close) — trickling bytes does not extend it. While a
 * request is being served the proxy's own timeouts apply instead.
 *
 * <p>One timer per connection, re-armed lazily: moving a deadline later costs no rescheduling.
 */
public final class ClientTimeouts extends ChannelInboundHandlerAdapter {
    private static final byte[] REQUEST_TIMEOUT = ("HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n"
            + "connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private enum Phase { IDLE, HEAD, BUSY }

    private final long idleNanos;
    private final long headerNanos;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.IDLE;
    private long deadline;
    private boolean timerArmed;

    public ClientTimeouts(Timeouts timeouts) {
        this.idleNanos = timeouts.idle().toNanos();
        this.headerNanos = timeouts.header().toNanos();
    }

    /** The connection waits for its next request: the idle limit applies. */
    void awaitRequest() {
        phase = Phase.IDLE;
        setDeadline(System.nanoTime() + idleNanos);
    }

    /** A whole request head arrived: no client-side limit until {@link #awaitRequest()}. */
    void requestStarted() {
        phase = Phase.BUSY;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            awaitRequest();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        awaitRequest();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase == Phase.IDLE && msg instanceof ByteBuf buf && buf.isReadable()) {
            phase = Phase.HEAD;
            setDeadline(System.nanoTime() + headerNanos);
        }
        ctx.fireChannelRead(msg);
    }

    private void setDeadline(long at) {
        deadline = at;
        if (!timerArmed) {
            timerArmed = true;
            ctx.executor().schedule(this::check, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
    }

    private void check() {
        timerArmed = false;
        if (!ctx.channel().isActive() || phase == Phase.BUSY) {
            return;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) {
            setDeadline(deadline);
            return;
        }
        if (phase == Phase.HEAD) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(REQUEST_TIMEOUT)).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
