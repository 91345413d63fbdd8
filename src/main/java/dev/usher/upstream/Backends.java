package dev.usher.upstream;

import java.util.Collection;
import java.util.function.LongSupplier;

/**
 * The backends a {@link LoadBalancer} chooses from, in config order, and which of them may take a request now.
 * Immutable apart from each {@link Backend}'s own thread-safe state.
 *
 * <p>A backend listed twice in a site appears twice here (so round robin gives it twice the share) but has one
 * {@link Backend} state.
 */
final class Backends {
    private final Backend[] slots;
    private final LongSupplier nanoTime;

    Backends(Backend[] slots, LongSupplier nanoTime) {
        this.slots = slots;
        this.nanoTime = nanoTime;
    }

    int size() {
        return slots.length;
    }

    Backend get(int i) {
        return slots[i];
    }

    /** May take this request: healthy, and not among {@code tried} (backends that already failed it). */
    boolean usable(Backend b, Collection<UpstreamPool> tried) {
        return b.available(nanoTime) && (tried.isEmpty() || !tried.contains(b.pool));
    }
}
