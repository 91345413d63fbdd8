package dev.usher.proxy;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The write timeout of one exchange: a client that stops reading its response holds a backend connection for
 * nothing, so once the client connection has stayed unwritable for the site's write timeout, the exchange is told
 * to let both go. Made only when a client first stops reading; one scheduled task at a time, re-armed for what is
 * left when the client read in between.
 *
 * <p>Threading: the client channel's event loop.
 */
final class WriteStallTimer {
    private final EventExecutor executor;
    private final long timeoutNanos;
    private final Runnable expired;
    private final Runnable check = this::check;
    private ScheduledFuture<?> task;
    /** When the client connection became unwritable ({@link System#nanoTime()}), or 0 while it is writable. */
    private long unwritableSince;

    /** @param expired run on the event loop once the client has not read for {@code timeoutNanos} */
    WriteStallTimer(EventExecutor executor, long timeoutNanos, Runnable expired) {
        this.executor = executor;
        this.timeoutNanos = timeoutNanos;
        this.expired = expired;
    }

    /** The client connection became unwritable: the client is not reading. */
    void unwritable() {
        unwritableSince = System.nanoTime();
        if (task == null) {
            task = executor.schedule(check, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The client connection is writable again. */
    void writable() {
        unwritableSince = 0;
    }

    /** The exchange is over: nothing fires any more. */
    void cancel() {
        unwritableSince = 0;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void check() {
        task = null;
        if (unwritableSince == 0) {
            return;
        }
        long left = unwritableSince + timeoutNanos - System.nanoTime();
        if (left > 0) {
            task = executor.schedule(check, left, TimeUnit.NANOSECONDS);
        } else {
            expired.run();
        }
    }
}
