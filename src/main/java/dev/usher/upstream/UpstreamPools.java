package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.server.Transport;
import io.netty.resolver.AddressResolverGroup;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every backend pool of a running Usher, one per backend address. Pools outlive a config generation, so a reload
 * that keeps a backend keeps its warm connections.
 */
public final class UpstreamPools implements AutoCloseable {
    /** Idle connections kept per backend per event loop; nginx's {@code keepalive 32} is the usual advice. */
    public static final int MAX_IDLE_PER_LOOP = 64;
    /** Below common backend keep-alive timeouts (nginx 75 s, Go 90 s); stale connections are also retried. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(50);

    private final Transport transport;
    private final AddressResolverGroup<InetSocketAddress> resolver = new OffloadingResolverGroup();
    private final Map<UpstreamAddress, UpstreamPool> pools = new ConcurrentHashMap<>();

    public UpstreamPools(Transport transport) {
        this.transport = transport;
    }

    /** The pool for {@code address}, made on first use. */
    public UpstreamPool pool(UpstreamAddress address) {
        return pools.computeIfAbsent(address,
                a -> new UpstreamPool(a, transport, resolver, MAX_IDLE_PER_LOOP, IDLE_TIMEOUT));
    }

    /** Every pool made so far, by backend address (a snapshot, for metrics). */
    public Map<UpstreamAddress, UpstreamPool> all() {
        return Map.copyOf(pools);
    }

    @Override
    public void close() {
        pools.values().forEach(UpstreamPool::close);
        resolver.close();
    }
}
