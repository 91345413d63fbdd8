package dev.usher.cert;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

    /**
     * {@code issuer}'s certificate for {@code name} from a virtual thread, or a failure after the issuer's deadline:
     * a CA that stalls must not hang a name.
     */
    CertifiedKey issue(Issuer issuer, String name) throws IssueException {
        Future<CertifiedKey> issuing = work.submit(() -> issuer.issue(name));
        Duration deadline = issuer.deadline();
        try {
            return issuing.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IssueException issue) {
                throw issue;
            }
            throw new IssueException(String.valueOf(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            issuing.cancel(true);
            throw new IssueException(issuer.id() + " did not finish within " + Durations.human(deadline), e);
        } catch (InterruptedException e) {
            issuing.cancel(true);
            Thread.currentThread().interrupt();
            throw new IssueException("interrupted", e);
        }
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
