package dev.usher.proxy;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The response timeout of the exchanges on one client side: how long a backend may stay silent while an exchange
 * waits on it, with one scheduled task that re-arms lazily. On an HTTP/1.1 keep-alive connection the task outlives
 * each exchange ({@code keepArmed}): the next exchange finds it armed and schedules nothing, so a busy connection
 * costs one task per timeout period instead of a schedule and a cancel per request. When the task fires it looks at
 * how long the watched exchange's backend has been silent, and re-arms for what is left or tells the exchange it
 * timed out.
 *
 * <p>Threading: confined to the client channel's event loop.
 */
final class ResponseTimer {
    private final EventExecutor executor;
    private final boolean keepArmed;
    private final Runnable fire = this::fire;
    private ProxyExchange watched;
    private long timeoutNanos;
    /** When the watched exchange's backend last sent something ({@link System#nanoTime()}), or it began waiting. */
    private long lastActivity;
    private ScheduledFuture<?> task;
    private long taskAt;

    /**
     * @param keepArmed leave the task scheduled when an exchange ends (for a connection that serves many in turn);
     *                  otherwise it is cancelled with the exchange
     */
    ResponseTimer(EventExecutor executor, boolean keepArmed) {
        this.executor = executor;
        this.keepArmed = keepArmed;
    }

    /**
     * {@code exchange} waits on its backend from now on, which may stay silent for {@code timeoutNanos}; when it was
     * watched already, this counts as activity.
     */
    void watch(ProxyExchange exchange, long timeoutNanos) {
        lastActivity = System.nanoTime();
        if (watched == exchange) {
            return;
        }
        watched = exchange;
        this.timeoutNanos = timeoutNanos;
        long deadline = lastActivity + timeoutNanos;
        if (task != null && taskAt - deadline <= 0) {
            return; // fires first, then re-arms for what the exchange has left
        }
        cancelTask();
        schedule(deadline);
    }

    /** The backend of {@code exchange} sent something: its silence starts again. */
    void activity(ProxyExchange exchange) {
        if (watched == exchange) {
            lastActivity = System.nanoTime();
        }
    }

    /** {@code exchange} no longer waits on its backend. */
    void stop(ProxyExchange exchange) {
        if (watched != exchange) {
            return;
        }
        watched = null;
        if (!keepArmed) {
            cancelTask();
        }
    }

    /** The client side is gone: nothing is watched any more and the task is cancelled. */
    void close() {
        watched = null;
        cancelTask();
    }

    private void schedule(long at) {
        taskAt = at;
        task = executor.schedule(fire, Math.max(0, at - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void cancelTask() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void fire() {
        task = null;
        ProxyExchange exchange = watched;
        if (exchange == null) {
            return; // between exchanges: the next one arms a new task
        }
        long deadline = lastActivity + timeoutNanos;
        if (deadline - System.nanoTime() > 0) {
            schedule(deadline);
            return;
        }
        watched = null;
        exchange.responseTimedOut();
    }
}
