package dev.usher.route;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The current {@link RouteTable}. Every request reads it once and keeps that snapshot to its end, so a swap never
 * changes a request half-way.
 */
public final class RouteTableHolder {
    private final AtomicReference<RouteTable> current;

    public RouteTableHolder(RouteTable initial) {
        current = new AtomicReference<>(initial);
    }

    /** The snapshot to use for a new request. */
    public RouteTable get() {
        return current.get();
    }

    /** Makes {@code next} the snapshot for every request that starts from now on; returns the previous one. */
    public RouteTable swap(RouteTable next) {
        return current.getAndSet(next);
    }
}
