package dev.usher.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Against this JVM's real collector. */
class GcCanaryTest {
    @Test
    void seesACollectionOnceAndNothingWithoutOne() {
        GcCanary canary = new GcCanary();
        System.gc(); // surefire's JVM runs without -XX:+DisableExplicitGC
        assertThat(canary.collectedSinceLastLook()).isTrue();
        assertThat(canary.collectedSinceLastLook()).isFalse(); // re-armed, and nothing ran since
    }

    @Test
    void seesAYoungCollectionCausedByAllocation() {
        GcCanary canary = new GcCanary();
        canary.collectedSinceLastLook(); // whatever ran before the test
        boolean seen = false;
        byte[][] kept = new byte[1][]; // a heap slot, so the allocations cannot be optimised away
        for (int i = 0; i < 400 && !seen; i++) {
            kept[0] = new byte[1024 * 1024]; // up to 400 MiB: far more than any young generation here
            seen = canary.collectedSinceLastLook();
        }
        assertThat(seen).as("a collection seen while allocating").isTrue();
        assertThat(kept[0]).isNotNull();
    }
}
