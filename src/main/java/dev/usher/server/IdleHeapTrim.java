package dev.usher.server;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Gives the heap that a burst of traffic grew back to the OS once the traffic has stopped. The serial collector
 * grows the heap under load but shrinks it (to {@code -XX:MaxHeapFreeRatio} free) only in a full collection, which
 * an idle server never runs by itself; so when the committed heap is larger than after the last trim and a whole
 * interval passed with almost no allocation, this asks for one full collection. At most one per growth of the
 * heap, so an idle server is not collected again and again. "Almost no allocation" needs two readings of the used
 * heap with no collection between them: under load a young collection empties the young generation many times a
 * second, and two readings a few seconds apart could then match by chance (a full collection in the middle of an
 * HTTP/2 load was seen, after which the heap the load grew was never trimmed). (G1 does the same with {@code -XX:G1PeriodicGCInterval};
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
    private final BooleanSupplier collectedSinceLastLook;
    private final Runnable collect;
    /** The committed heap after the last trim: only a heap grown beyond it is worth a collection. */
    private long trimmedAt;
    private long lastUsed = -1;

    /** This JVM's heap, collected with {@link System#gc} (which {@code -XX:+DisableExplicitGC} turns off). */
    public IdleHeapTrim() {
        this(() -> Runtime.getRuntime().totalMemory(),
                () -> Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory(),
                new GcCanary()::collectedSinceLastLook, System::gc);
    }

    /**
     * A heap read through {@code committed} and {@code used} (bytes), whose collections since the last look
     * {@code collectedSinceLastLook} reports, and which {@code collect} collects.
     */
    IdleHeapTrim(LongSupplier committed, LongSupplier used, BooleanSupplier collectedSinceLastLook, Runnable collect) {
        this.committed = committed;
        this.used = used;
        this.collectedSinceLastLook = collectedSinceLastLook;
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
        // without a collection in between, the used heap grew by exactly what was allocated (TLABs aside)
        boolean comparable = !collectedSinceLastLook.getAsBoolean();
        boolean quiet = lastUsed >= 0 && comparable && now - lastUsed < QUIET_BYTES;
        lastUsed = now;
        if (quiet && committed.getAsLong() > trimmedAt) {
            collect.run();
            collectedSinceLastLook.getAsBoolean(); // our own collection: the next look compares from here
            trimmedAt = committed.getAsLong();
            lastUsed = used.getAsLong();
        }
    }
}
