package dev.usher.upstream;

import java.net.InetAddress;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The usable backend with the fewest requests in flight. Ties go round robin: the scan starts one place further on
 * each pick and keeps the first of the lowest, so idle backends share a light load evenly instead of the first one
 * taking it all.
 *
 * <p>The counts are read without a snapshot; two loops picking at the same moment may both see the same least-loaded
 * backend. That costs a little balance under bursts, never correctness, and avoids any lock.
 */
final class LeastConn implements LoadBalancer {
    private final AtomicInteger next = new AtomicInteger();

    @Override
    public Backend pick(Backends backends, InetAddress client, Collection<UpstreamPool> tried) {
        int n = backends.size();
        int start = Math.floorMod(next.getAndIncrement(), n);
        Backend best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            int at = start + i;
            Backend b = backends.get(at >= n ? at - n : at);
            int load = b.inFlight();
            if (load < bestLoad && backends.usable(b, tried)) {
                best = b;
                bestLoad = load;
            }
        }
        return best;
    }
}
