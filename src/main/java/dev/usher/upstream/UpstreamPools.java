package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.net.Transport;
import io.netty.resolver.AddressResolverGroup;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every backend pool of a running Usher, one per backend (address, scheme and TLS settings). Pools outlive a config generation, so a reload
 * that keeps a backend keeps its warm connections.
 */
public final class UpstreamPools implements AutoCloseable {
    /** Idle connections kept per backend per event loop; nginx's {@code keepalive 32} is the usual advice. */
    public static final int MAX_IDLE_PER_LOOP = 64;
    /** Below common backend keep-alive timeouts (nginx 75 s, Go 90 s); stale connections are also retried. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(50);

    private final Transport transport;
    private final AddressResolverGroup<InetSocketAddress> resolver;
    private final Map<UpstreamAddress, UpstreamPool> pools = new ConcurrentHashMap<>();
    /** TLS contexts for https:// backends, shared by their pools and kept for good: sessions resume on reconnect. */
    private final BackendTls tls = new BackendTls();

    public UpstreamPools(Transport transport) {
        this(transport, new OffloadingResolverGroup());
    }

    /** With another way of resolving backend names (tests whose backends are not on sockets). */
    public UpstreamPools(Transport transport, AddressResolverGroup<InetSocketAddress> resolver) {
        this.transport = transport;
        this.resolver = resolver;
    }

    /** The pool for {@code address}, made on first use. */
    public UpstreamPool pool(UpstreamAddress address) {
        return pools.computeIfAbsent(address,
                a -> new UpstreamPool(a, transport, resolver, MAX_IDLE_PER_LOOP, IDLE_TIMEOUT, tls));
    }

    /** Every pool made so far, by backend address (a snapshot, for metrics). */
    public Map<UpstreamAddress, UpstreamPool> all() {
        return Map.copyOf(pools);
    }

    /**
     * Closes and forgets the pools of backends not in {@code inUse} (a reload removed them): their idle connections
     * close now, and a request still running on an older config finishes on its connection, which then closes
     * instead of going back to the pool. A backend that comes back later gets a new pool.
     *
     * @return how many pools were closed
     */
    public int retainOnly(Set<UpstreamAddress> inUse) {
        int closed = 0;
        for (Map.Entry<UpstreamAddress, UpstreamPool> entry : pools.entrySet()) {
            if (!inUse.contains(entry.getKey()) && pools.remove(entry.getKey(), entry.getValue())) {
                entry.getValue().close();
                closed++;
            }
        }
        return closed;
    }

    @Override
    public void close() {
        pools.values().forEach(UpstreamPool::close);
        resolver.close();
    }
}
