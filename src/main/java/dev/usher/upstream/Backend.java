package dev.usher.upstream;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * What one {@link UpstreamGroup} knows about one of its backends: requests in flight, passive health (failures in a
 * row, down until when) and active health (the last health check's verdict).
 *
 * <p>Threading: read and written by every event loop at once. Counters are atomics; the health fields are volatile
 * and each has a single kind of writer, so no locks are needed. The state is per group, not per pool, because a pool
 * outlives a config generation and two sites may share a backend with different health settings.
 */
final class Backend {
    final UpstreamPool pool;
    /** Position in config order (first occurrence), used for status and health-check bookkeeping. */
    final int index;
    /** Stable per address (not per run), so ip_hash sends a client to the same backend after a restart. */
    final long hashSeed;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger failures = new AtomicInteger();
    /** Passive: set when failures reach max_fails; readers only then look at the clock. Written after downUntil. */
    private volatile boolean passiveDown;
    private volatile long downUntilNanos;
    /** Active: written only by the health-check event loop. */
    private volatile boolean checkDown;
    private volatile String checkReason;

    Backend(UpstreamPool pool, int index) {
        this.pool = pool;
        this.index = index;
        this.hashSeed = seed(pool.address().authority());
    }

    /** Not marked down by a health check, and not inside a passive down window. Reads the clock only when needed. */
    boolean available(LongSupplier clock) {
        if (checkDown) {
            return false;
        }
        return !passiveDown || clock.getAsLong() - downUntilNanos >= 0;
    }

    int inFlight() {
        return Math.max(0, inFlight.get());
    }

    void started() {
        inFlight.incrementAndGet();
    }

    void ended() {
        inFlight.decrementAndGet();
    }

    int failures() {
        return failures.get();
    }

    /**
     * Counts a failure; at {@code maxFails} or more in a row (when {@code maxFails > 0}) the backend is down until
     * {@code nowNanos + failTimeoutNanos}. A backend whose window has passed is thus marked down again by its next
     * failure.
     *
     * @return true when this failure is the one that took the backend down (for a single log line)
     */
    boolean failed(int maxFails, long nowNanos, long failTimeoutNanos) {
        int n = failures.updateAndGet(f -> f == Integer.MAX_VALUE ? f : f + 1);
        if (maxFails <= 0 || n < maxFails) {
            return false;
        }
        downUntilNanos = nowNanos + failTimeoutNanos;
        passiveDown = true;
        return n == maxFails;
    }

    /**
     * Resets the failure count. Reads before writing: on the hot path the count is nearly always 0 already, and a
     * read keeps the cache line shared between event loops.
     *
     * @return true when the backend had been marked down by passive health (for a single log line)
     */
    boolean succeeded(int maxFails) {
        if (failures.get() == 0) {
            return false;
        }
        int before = failures.getAndSet(0);
        if (passiveDown) {
            passiveDown = false;
        }
        return maxFails > 0 && before >= maxFails;
    }

    boolean passiveDown() {
        return passiveDown;
    }

    long downUntilNanos() {
        return downUntilNanos;
    }

    boolean checkDown() {
        return checkDown;
    }

    /** Why the last health check failed, or null when it passed (or none ran). */
    String checkReason() {
        return checkReason;
    }

    /**
     * Records a health check's verdict. Called only from the health-check event loop.
     *
     * @param failure why the check failed, or null when it passed
     * @return true when this changed the backend's active state
     */
    boolean checked(String failure) {
        boolean wasDown = checkDown;
        checkReason = failure;
        checkDown = failure != null;
        return wasDown != (failure != null);
    }

    /** 64-bit FNV-1a over the UTF-8 bytes, then a finalizer: same on every run and spread over all 64 bits. */
    private static long seed(String authority) {
        long h = 0xcbf29ce484222325L;
        for (byte b : authority.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    /** The splitmix64 finalizer: every input bit affects every output bit. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return pool.address().authority();
    }
}
