package dev.usher.proxy;

import io.netty.channel.ChannelHandlerContext;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The read timeout of one HTTP/2 stream's request body: the HTTP/2 counterpart of {@link ClientTimeouts}' body
 * phase. Without it, a client could open a stream, send HEADERS without END_STREAM and then nothing, holding the
 * stream and a backend connection for as long as the connection lives (open streams keep an HTTP/2 connection
 * from its idle timeout).
 *
 * <p>Runs from the request head until the request is complete. Each DATA frame read moves the deadline; a pause
 * only counts while {@code waitingOnClient} says Usher wants more of the body, so time spent on a slow backend, a
 * backend connect or a password check is not the client's. When the deadline passes, {@code onTimeout} runs once.
 *
 * <p>One timer per stream, re-armed lazily: a DATA frame only moves the deadline, the armed timer re-arms itself.
 * Threading: the stream's event loop only.
 */
final class StreamBodyTimeout {
    private final ChannelHandlerContext ctx;
    private final Runnable onTimeout;
    private long timeoutNanos;
    private BooleanSupplier waitingOnClient = () -> true;
    private long deadline;
    private ScheduledFuture<?> timer;

    StreamBodyTimeout(ChannelHandlerContext ctx, Runnable onTimeout) {
        this.ctx = ctx;
        this.onTimeout = onTimeout;
    }

    /**
     * Starts (or restarts) the clock: from now, a pause of {@code timeoutNanos} while {@code waitingOnClient} holds
     * ends the stream.
     */
    void start(long timeoutNanos, BooleanSupplier waitingOnClient) {
        this.timeoutNanos = timeoutNanos;
        this.waitingOnClient = waitingOnClient;
        deadline = System.nanoTime() + timeoutNanos;
        if (timer != null) {
            timer.cancel(false);
        }
        arm(timeoutNanos);
    }

    /** Part of the body arrived: the client has another full timeout for the next. */
    void bodyRead() {
        if (timer != null) {
            deadline = System.nanoTime() + timeoutNanos;
        }
    }

    /**
     * A local answer goes out before the body is in. The stream is reset once the answer is written, but a client
     * that gives the answer no window would keep it open: while the clock runs, the stream now ends one timeout
     * from here whatever the client does.
     */
    void answering() {
        if (timer != null) {
            start(timeoutNanos, () -> true);
        }
    }

    /** The request is complete or the stream gone: the clock stops for good. */
    void stop() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void arm(long delayNanos) {
        timer = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        timer = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        if (!waitingOnClient.getAsBoolean()) {
            deadline = now + timeoutNanos; // Usher is not reading: the client is not to blame for the pause
        }
        long left = deadline - now;
        if (left > 0) {
            arm(left);
        } else {
            onTimeout.run();
        }
    }
}
