package dev.usher.route;

/**
 * Where a listener's pipelines find the current {@link RouteTable}. Every request reads it once and keeps that
 * snapshot to its end, so a reload never changes a request half-way. The running server's holders read the route
 * table of the generation in service; a fixed table (tests, benchmarks) is {@link #of}.
 */
@FunctionalInterface
public interface RouteTableHolder {
    /** The snapshot to use for a new request. */
    RouteTable get();

    /** A holder that always gives {@code table}. */
    static RouteTableHolder of(RouteTable table) {
        return () -> table;
    }
}
