package dev.usher.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class IdleHeapTrimTest {
    private static final long MIB = 1024 * 1024;

    /** A heap whose figures the test sets; a collection shrinks it to what is in use plus a little. */
    private static final class Heap {
        long committed = 8 * MIB;
        long used = 5 * MIB;
        /** A collection (young or full) ran since the trim last looked. */
        boolean collectedSinceLook;
        int collections;

        IdleHeapTrim trim() {
            return new IdleHeapTrim(() -> committed, () -> used, () -> {
                boolean collected = collectedSinceLook;
                collectedSinceLook = false;
                return collected;
            }, () -> {
                collections++;
                collectedSinceLook = true;
                used = 5 * MIB;
                committed = 7 * MIB;
            });
        }
    }

    @Test
    void collectsOnceWhenTheHeapGrewAndAnIntervalWasQuiet() {
        Heap heap = new Heap();
        IdleHeapTrim trim = heap.trim();
        heap.committed = 20 * MIB; // traffic grew the heap
        heap.used = 12 * MIB;
        trim.run(); // first look: nothing to compare with yet
        assertThat(heap.collections).isZero();
        trim.run(); // nothing allocated since: idle
        assertThat(heap.collections).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            trim.run(); // still idle, heap no larger than after the trim: left alone
        }
        assertThat(heap.collections).isEqualTo(1);
    }

    @Test
    void leavesABusyHeapAlone() {
        Heap heap = new Heap();
        IdleHeapTrim trim = heap.trim();
        heap.committed = 20 * MIB;
        for (int i = 0; i < 10; i++) {
            heap.used = (i % 2 == 0 ? 9 : 15) * MIB; // allocation (and young collections) between looks
            heap.collectedSinceLook = true;
            trim.run();
        }
        assertThat(heap.collections).isZero();
    }

    @Test
    void theSameReadingOnEitherSideOfAYoungCollectionIsNotIdle() {
        Heap heap = new Heap();
        IdleHeapTrim trim = heap.trim();
        heap.committed = 20 * MIB;
        heap.used = 9 * MIB;
        for (int i = 0; i < 10; i++) {
            heap.collectedSinceLook = true; // under load: the young generation filled and was emptied in between
            trim.run(); // used reads 9 MiB every time, by chance
        }
        assertThat(heap.collections).isZero();
        trim.run(); // the load stopped: no collection since the last look, no allocation
        assertThat(heap.collections).isEqualTo(1);
    }

    @Test
    void smallAllocationsStillCountAsIdle() {
        Heap heap = new Heap();
        IdleHeapTrim trim = heap.trim();
        heap.committed = 20 * MIB;
        trim.run();
        heap.used += IdleHeapTrim.QUIET_BYTES / 2; // timers, housekeeping
        trim.run();
        assertThat(heap.collections).isEqualTo(1);
    }

    @Test
    void collectsAgainAfterTheNextBurstGrewTheHeapAgain() {
        Heap heap = new Heap();
        IdleHeapTrim trim = heap.trim();
        heap.committed = 20 * MIB;
        trim.run();
        trim.run();
        assertThat(heap.collections).isEqualTo(1);
        heap.used = 14 * MIB; // the next burst
        heap.committed = 16 * MIB;
        trim.run();
        assertThat(heap.collections).isEqualTo(1);
        trim.run(); // quiet again, and larger than after the last trim
        assertThat(heap.collections).isEqualTo(2);
    }
}
