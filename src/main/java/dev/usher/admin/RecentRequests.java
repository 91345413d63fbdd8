package dev.usher.admin;

import dev.usher.observe.Metrics;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Requests per site in the last minute, for the admin API's site list. Rather than a second count on the hot path,
 * the per-site request totals that {@link Metrics} keeps anyway are sampled every 10 seconds into a ring of seven
 * samples; the last minute is the current total minus the sample of 60 s ago (or the oldest one, just after a
 * start). The hot path is untouched; the figure is exact to the last 10 s step.
 */
final class RecentRequests {
    static final long STEP_MILLIS = 10_000;
    private static final int SAMPLES = 7;

    private final Metrics metrics;
    /** Guarded by this; oldest first. */
    private final Deque<Map<String, Long>> samples = new ArrayDeque<>();

    /** {@code metrics}: null when metrics are off (then every count is 0). */
    RecentRequests(Metrics metrics) {
        this.metrics = metrics;
        sample();
    }

    /** Takes one sample; called every {@link #STEP_MILLIS}. */
    synchronized void sample() {
        if (metrics == null) {
            return;
        }
        if (samples.size() == SAMPLES) {
            samples.removeFirst();
        }
        samples.addLast(metrics.requestTotals());
    }

    /** Requests per site name in about the last minute (sites with none may be missing). */
    synchronized Map<String, Long> lastMinute() {
        if (metrics == null || samples.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> oldest = samples.peekFirst();
        Map<String, Long> result = new java.util.HashMap<>();
        metrics.requestTotals().forEach((site, n) -> result.put(site, Math.max(0, n - oldest.getOrDefault(site, 0L))));
        return result;
    }
}
