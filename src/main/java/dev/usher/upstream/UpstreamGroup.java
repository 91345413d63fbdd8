package dev.usher.upstream;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** The backends of one site, taken in turn (round robin). */
public final class UpstreamGroup {
    private final List<UpstreamPool> pools;
    private final AtomicInteger next = new AtomicInteger();

    public UpstreamGroup(List<UpstreamPool> pools) {
        if (pools.isEmpty()) {
            throw new IllegalArgumentException("a site needs at least one backend");
        }
        this.pools = List.copyOf(pools);
    }

    /** The backend for the next request. */
    public UpstreamPool pick() {
        if (pools.size() == 1) {
            return pools.get(0);
        }
        return pools.get(Math.floorMod(next.getAndIncrement(), pools.size()));
    }

    /** Every backend of the site, in config order. */
    public List<UpstreamPool> pools() {
        return pools;
    }
}
