package dev.usher.config;

import java.time.Duration;

/**
 * How a site with several backends spreads requests and notices dead ones.
 *
 * @param policy      which backend takes the next request
 * @param maxFails    passive health: after this many failures in a row a backend is skipped...
 * @param failTimeout ...for this long (then tried again)
 * @param health      active health checks, or null for none
 */
public record Balancing(Policy policy, int maxFails, Duration failTimeout, HealthCheck health) {
    /** Round robin; a backend failing 3 times in a row is skipped for 30 s; no active checks. */
    public static final Balancing DEFAULTS = new Balancing(Policy.ROUND_ROBIN, 3, Duration.ofSeconds(30), null);

    /** Load-balancing policies ({@code policy:} in a site). */
    public enum Policy {
        /** In turn. */
        ROUND_ROBIN,
        /** The backend with the fewest requests in flight. */
        LEAST_CONN,
        /** The first healthy backend in file order (failover). */
        FIRST,
        /** The same client IP goes to the same backend while it is healthy. */
        IP_HASH
    }

    /**
     * Active health checks: a GET of {@code path} on each backend every {@code interval}; a 2xx or 3xx answer within
     * {@code timeout} means healthy. With {@code path} null (the backends of streams and passthrough sites), a TCP
     * connection made within {@code timeout} means healthy.
     */
    public record HealthCheck(String path, Duration interval, Duration timeout) {
    }
}
