package dev.usher.reload;

import java.time.Instant;

/**
 * Counts of reloads for status and metrics: how many put a new config in service, how many were refused, and when
 * the last of each happened. Thread-safe; the counters only grow.
 */
public final class ReloadCounts {
    private long successes;
    private long failures;
    private Instant lastSuccess;
    private Instant lastFailure;

    /** Counts one reload that ended with {@code result}. */
    public synchronized void record(ReloadResult result) {
        if (result.ok()) {
            successes++;
            lastSuccess = Instant.now();
        } else {
            failures++;
            lastFailure = Instant.now();
        }
    }

    /** The counts as they are now. */
    public synchronized Snapshot snapshot() {
        return new Snapshot(successes, failures, lastSuccess, lastFailure);
    }

    /**
     * Reload counts at one moment.
     *
     * @param successes   reloads that put a new config in service
     * @param failures    reloads refused (an invalid file, a listener that could not be bound); the old config stayed
     * @param lastSuccess when the last successful reload finished, or null
     * @param lastFailure when the last refused reload finished, or null
     */
    public record Snapshot(long successes, long failures, Instant lastSuccess, Instant lastFailure) {
    }
}
