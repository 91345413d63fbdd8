package dev.usher.upstream;

import java.net.InetAddress;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Each backend in turn; an unusable one is skipped and its turn goes to the next usable one. One shared counter:
 * with every backend usable, N picks give each of K backends exactly N/K (± 1), whatever the threads.
 */
final class RoundRobin implements LoadBalancer {
    private final AtomicInteger next = new AtomicInteger();

    @Override
    public Backend pick(Backends backends, InetAddress client, Collection<UpstreamPool> tried) {
        int n = backends.size();
        // floorMod keeps the order correct when the counter wraps past Integer.MAX_VALUE.
        int start = Math.floorMod(next.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            int at = start + i;
            Backend b = backends.get(at >= n ? at - n : at);
            if (backends.usable(b, tried)) {
                return b;
            }
        }
        return null;
    }
}
