package dev.usher.upstream;

import dev.usher.config.Balancing;

import java.net.InetAddress;
import java.util.Collection;

/**
 * A load-balancing policy: which backend takes the next request. One instance per {@link UpstreamGroup}, called from
 * every event loop at once, so implementations are thread-safe, lock-free and allocate nothing per pick.
 */
interface LoadBalancer {
    /**
     * A backend for which {@link Backends#usable} holds, or null when none does.
     *
     * @param client the client's IP address (may be null when unknown)
     * @param tried  backends that already failed this request
     */
    Backend pick(Backends backends, InetAddress client, Collection<UpstreamPool> tried);

    /** The implementation of {@code policy} (round robin for null). */
    static LoadBalancer of(Balancing.Policy policy) {
        if (policy == null) {
            return new RoundRobin();
        }
        return switch (policy) {
            case ROUND_ROBIN -> new RoundRobin();
            case LEAST_CONN -> new LeastConn();
            case FIRST -> new FirstAvailable();
            case IP_HASH -> new IpHash();
        };
    }
}
