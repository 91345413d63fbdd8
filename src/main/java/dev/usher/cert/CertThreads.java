package dev.usher.cert;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The certificate manager's threads: one timer thread that only schedules, and virtual threads that do the work
 * (orders and renewals block on the network, file checks on the disk). Made by {@link CertManager#start}.
 */
final class CertThreads implements AutoCloseable {
    private final ScheduledExecutorService timer;
    private final ExecutorService work;

    private CertThreads(ScheduledExecutorService timer, ExecutorService work) {
        this.timer = timer;
        this.work = work;
    }

    static CertThreads start() {
        return new CertThreads(Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "certificates");
            t.setDaemon(true);
            return t;
        }), Executors.newVirtualThreadPerTaskExecutor());
    }

    /** Runs {@code task} on a virtual thread after {@code delay} (at once when it is not positive). */
    ScheduledFuture<?> later(Duration delay, Runnable task) {
        return timer.schedule(() -> work.submit(task), Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} on a virtual thread every {@code period}, the first time after one period. */
    ScheduledFuture<?> every(Duration period, Runnable task) {
        return timer.scheduleWithFixedDelay(() -> work.submit(task), period.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** The executor of the work itself. */
    ExecutorService work() {
        return work;
    }

    /** Stops scheduling; work in flight is interrupted. */
    @Override
    public void close() {
        timer.shutdownNow();
        work.shutdownNow();
    }
}
