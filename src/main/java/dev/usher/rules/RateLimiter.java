package dev.usher.rules;

import dev.usher.config.RateLimit;

import java.util.function.LongSupplier;

/**
 * One site's {@code rate_limit}, a token bucket per client: it refills at {@code requests} per {@code per} (one token
 * every {@code per / requests}) and holds at most {@code burst} tokens, or {@code requests} when no burst is given.
 * So {@code requests: 5, per: 1m} lets a quiet client make 5 requests at once, then one every 12 s; and
 * {@code requests: 100, per: 1m, burst: 20} allows 20 at once, then one every 600 ms (Traefik's average and burst).
 * The buckets live in {@link RuleServices} so that they survive a reload.
 */
final class RateLimiter {
    /** About 36 years: keeps {@code tat + interval} and {@code burst * interval} far from overflowing. */
    private static final long MAX_NANOS = 1L << 60;

    private final TokenBuckets buckets;
    private final int site;
    private final long interval;
    private final long tolerance;
    private final LongSupplier nanoTime;

    RateLimiter(RateLimit limit, int site, TokenBuckets buckets, LongSupplier nanoTime) {
        this.buckets = buckets;
        this.site = site;
        this.nanoTime = nanoTime;
        long per = Math.min(MAX_NANOS, Math.max(1, limit.per().toNanos()));
        this.interval = Math.max(1, per / Math.max(1, limit.requests()));
        long extra = (limit.burst() > 0 ? limit.burst() : Math.max(1, limit.requests())) - 1L;
        this.tolerance = extra > MAX_NANOS / interval ? MAX_NANOS : extra * interval;
    }

    /** 0 when the client may go on (and a token is taken), else the nanoseconds until it may. */
    long waitNanos(long hi, long lo) {
        return buckets.take(site, hi, lo, nanoTime.getAsLong(), interval, tolerance);
    }

    /** The Retry-After value for a wait: whole seconds, rounded up, at least 1. */
    static long retryAfterSeconds(long waitNanos) {
        return Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
    }
}
