package dev.usher.server;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Gives the heap that a burst of traffic grew back to the OS once the traffic has stopped. The serial collector
 * grows the heap under load but shrinks it (to {@code -XX:MaxHeapFreeRatio} free) only in a full collection, which
 * an idle server never runs by itself; so when the committed heap is larger than after the last trim and a whole
 * interval passed with almost no allocation, this asks for one full collection. At most one per growth of the
 * heap, so an idle server is not collected again and again. (G1 does the same with {@code -XX:G1PeriodicGCInterval};
 * G1 itself costs more idle memory than it would give back here.)
 *
 * <p>Runs on one event loop; a full collection of a heap this size pauses every thread for a few milliseconds
 * whichever thread asks for it. Measured in BENCHMARKS.md ("Footprint, 2026-11-30 (second pass)").
 */
public final class IdleHeapTrim implements Runnable {
    /** Less allocation than this in one interval counts as idle: timers and housekeeping stay far below it. */
    static final long QUIET_BYTES = 256 * 1024;

    private final LongSupplier committed;
    private final LongSupplier used;
    private final Runnable collect;
    /** The committed heap after the last trim: only a heap grown beyond it is worth a collection. */
    private long trimmedAt;
    private long lastUsed = -1;

    /** This JVM's heap, collected with {@link System#gc} (which {@code -XX:+DisableExplicitGC} turns off). */
    public IdleHeapTrim() {
        this(() -> Runtime.getRuntime().totalMemory(),
                () -> Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory(), System::gc);
    }

    /** A heap read through {@code committed} and {@code used} (bytes) and collected by {@code collect}. */
    IdleHeapTrim(LongSupplier committed, LongSupplier used, Runnable collect) {
        this.committed = committed;
        this.used = used;
        this.collect = collect;
    }

    /** Checks every {@code interval} on {@code loop} until the loop shuts down. */
    public static ScheduledFuture<?> start(EventExecutor loop, Duration interval) {
        long ms = interval.toMillis();
        return loop.scheduleAtFixedRate(new IdleHeapTrim(), ms, ms, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        long now = used.getAsLong();
        boolean quiet = lastUsed >= 0 && Math.abs(now - lastUsed) < QUIET_BYTES;
        lastUsed = now;
        if (quiet && committed.getAsLong() > trimmedAt) {
            collect.run();
            trimmedAt = committed.getAsLong();
            lastUsed = used.getAsLong();
        }
    }
}
