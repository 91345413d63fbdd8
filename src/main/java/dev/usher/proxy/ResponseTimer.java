package dev.usher.proxy;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The response timeout of the exchanges on one client side, with one scheduled task that re-arms lazily. On an
 * HTTP/1.1 keep-alive connection the task outlives each exchange ({@code keepArmed}): the next exchange finds it armed
 * and schedules nothing, so a busy connection costs one task per timeout period instead of a schedule and a cancel
 * per request. When the task fires it asks the watched exchange how long it may still wait and re-arms for that.
 *
 * <p>Threading: confined to the client channel's event loop.
 */
final class ResponseTimer {
    private final EventExecutor executor;
    private final boolean keepArmed;
    private final Runnable fire = this::fire;
    private ProxyExchange watched;
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

    /** Watches {@code exchange}, which times out at {@code deadline} ({@link System#nanoTime()}) at the earliest. */
    void watch(ProxyExchange exchange, long deadline) {
        watched = exchange;
        if (task != null && taskAt - deadline <= 0) {
            return; // fires first, then re-arms for what the exchange has left
        }
        cancelTask();
        schedule(deadline);
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
        long left = exchange.responseTimeLeft();
        if (left > 0 && watched == exchange && task == null) {
            schedule(System.nanoTime() + left);
        }
    }
}
