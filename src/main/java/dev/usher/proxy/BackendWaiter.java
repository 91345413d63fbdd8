package dev.usher.proxy;

import dev.usher.config.BackendWait;
import dev.usher.upstream.UpstreamGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * One request riding out a backend restart ({@code wait_for_backend:}): while every backend of its site is down, it
 * tries again at short, growing intervals (50 ms doubling to 500 ms: a backend back on its feet is found within half
 * a second, and a site that stays down costs a few connection attempts a second per waiting request) until its wait
 * is over. It holds one of the site's bounded places for waiting requests from its first wait to its end.
 *
 * <p>Threading: the client's event loop.
 */
final class BackendWaiter {
    private static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MOST_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final EventExecutor executor;
    private final UpstreamGroup group;
    private final BackendWait settings;
    /** When the wait is over ({@link System#nanoTime()}), set at the first wait; 0 before it. */
    private long deadline;
    private long nextDelay = FIRST_NANOS;
    /** Holding one of the site's places now (between a wait and the connection that ends it). */
    private boolean holding;
    private ScheduledFuture<?> timer;

    BackendWaiter(EventExecutor executor, UpstreamGroup group, BackendWait settings) {
        this.executor = executor;
        this.group = group;
        this.settings = settings;
    }

    /**
     * Schedules {@code retry} for a little later: true when it was, false when the request may not (or may no
     * longer) wait: its wait is over, or the site has as many waiting requests as it allows.
     */
    boolean retryLater(Runnable retry) {
        long now = System.nanoTime();
        if (deadline == 0) {
            deadline = now + settings.time().toNanos();
        }
        long left = deadline - now;
        if (left <= 0) {
            return false;
        }
        if (!holding) {
            if (!group.startWaiting(settings.maxRequests())) {
                return false;
            }
            holding = true;
        }
        long delay = Math.min(nextDelay, left);
        nextDelay = Math.min(nextDelay * 2, MOST_NANOS);
        timer = executor.schedule(retry, delay, TimeUnit.NANOSECONDS);
        return true;
    }

    /** True once the request has waited at all. */
    boolean waited() {
        return deadline != 0;
    }

    /** The request got a backend connection, or ended: the timer stops and its place is given back. */
    void done() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (holding) {
            holding = false;
            group.stopWaiting();
        }
    }
}
