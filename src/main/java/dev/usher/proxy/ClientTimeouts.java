package dev.usher.proxy;

import dev.usher.config.Timeouts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Slowloris defence for one client connection, placed before the HTTP decoder so it sees raw bytes. Between requests
 * the connection may stay idle for {@code timeouts.idle}; once the first byte of a request arrives, the whole head
 * must arrive within {@code timeouts.header} (else 408 and close) — trickling bytes does not extend it. While a
 * request body is read, a pause longer than the site's read timeout closes the connection. Otherwise, while a
 * request is being served, the proxy's own timeouts apply.
 *
 * <p>One timer per connection, re-armed lazily: moving a deadline later costs no rescheduling; only an earlier
 * deadline (a header timeout shorter than the idle one) replaces the armed timer.
 */
public final class ClientTimeouts extends ChannelInboundHandlerAdapter {
    private static final byte[] REQUEST_TIMEOUT = ("HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n"
            + "connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private enum Phase { IDLE, HEAD, BODY, BUSY, CLOSING }

    private final long idleNanos;
    private final long headerNanos;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.IDLE;
    private long bodyNanos;
    private BooleanSupplier waitingOnClient;
    private long deadline;
    /** When the first byte of the next request arrived while the current one was served (read ahead), or 0. */
    private long nextHeadAt;
    private ScheduledFuture<?> timer;
    private long timerAt;

    public ClientTimeouts(Timeouts timeouts) {
        this.idleNanos = timeouts.idle().toNanos();
        this.headerNanos = timeouts.header().toNanos();
    }

    /** The connection waits for its next request: the idle limit applies. */
    void awaitRequest() {
        awaitRequest(idleNanos);
    }

    /** The connection waits for its next request, for at most {@code idleNanos} (a site's own idle timeout). */
    void awaitRequest(long idleNanos) {
        if (phase == Phase.CLOSING) {
            return;
        }
        long now = System.nanoTime();
        if (nextHeadAt != 0) {
            // Bytes of the next request came while this one was served: its header timeout runs from then.
            phase = Phase.HEAD;
            setDeadline(nextHeadAt + headerNanos);
            nextHeadAt = 0;
            return;
        }
        phase = Phase.IDLE;
        // Armed no later than a header timeout from now, so that the next request's first byte (whose head must
        // come within the header timeout) finds the timer early enough and schedules nothing: no timer task per
        // request on a busy keep-alive connection.
        setDeadline(now + idleNanos, now + Math.min(idleNanos, headerNanos));
    }

    /**
     * The connection is to close once its last answer is written. A client that never reads that answer would hold
     * the connection (and a slot of {@code limits.connections}) forever: after the header timeout it is cut.
     */
    void closeSoon() {
        if (phase != Phase.CLOSING) {
            phase = Phase.CLOSING;
            setDeadline(System.nanoTime() + headerNanos);
        }
    }

    /** True while the connection waits for a request and no byte of one has arrived yet. */
    boolean betweenRequests() {
        return phase == Phase.IDLE;
    }

    /** A whole request head arrived: no client-side limit until {@link #awaitRequest()}. */
    void busy() {
        if (phase != Phase.CLOSING) {
            phase = Phase.BUSY;
            nextHeadAt = 0;
        }
    }

    /**
     * A request body is being read: while {@code waitingOnClient} says Usher wants more and none arrives for
     * {@code readTimeoutNanos}, the connection is closed. Time spent waiting on a slow backend does not count.
     */
    void awaitBody(long readTimeoutNanos, BooleanSupplier waitingOnClient) {
        if (phase == Phase.CLOSING) {
            return;
        }
        phase = Phase.BODY;
        bodyNanos = readTimeoutNanos;
        this.waitingOnClient = waitingOnClient;
        setDeadline(System.nanoTime() + readTimeoutNanos);
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
        } else if (phase == Phase.BODY) {
            deadline = System.nanoTime() + bodyNanos;
        } else if (phase == Phase.BUSY && nextHeadAt == 0 && msg instanceof ByteBuf buf && buf.isReadable()) {
            nextHeadAt = System.nanoTime();
        }
        ctx.fireChannelRead(msg);
    }

    private void setDeadline(long at) {
        setDeadline(at, at);
    }

    /** Sets the deadline and makes sure the timer fires no later than {@code fireBy} (at or before the deadline). */
    private void setDeadline(long at, long fireBy) {
        deadline = at;
        if (timer != null && timerAt - fireBy <= 0) {
            return; // the armed timer fires first and re-arms itself for the later deadline
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = fireBy;
        timer = ctx.executor().schedule(this::check, Math.max(0, fireBy - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void check() {
        timer = null;
        if (!ctx.channel().isActive() || phase == Phase.BUSY) {
            return;
        }
        long left = deadline - System.nanoTime();
        if (phase == Phase.BODY && !waitingOnClient.getAsBoolean()) {
            // Usher is not reading (the backend is slow to take the body): the client is not to blame.
            setDeadline(System.nanoTime() + bodyNanos);
            return;
        }
        if (left > 0) {
            long now = System.nanoTime();
            setDeadline(deadline, phase == Phase.IDLE ? Math.min(deadline, now + headerNanos) : deadline);
            return;
        }
        if (phase == Phase.HEAD) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(REQUEST_TIMEOUT)).addListener(ChannelFutureListener.CLOSE);
        } else {
            // Idle between requests, or a request body that stopped arriving (a response may be under way, so
            // no bytes of our own can be written): just close.
            ctx.close();
        }
    }
}
