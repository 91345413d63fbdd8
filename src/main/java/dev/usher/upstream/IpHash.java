package dev.usher.upstream;

import java.net.InetAddress;
import java.util.Collection;

/**
 * The same client IP goes to the same backend, by rendezvous (highest-random-weight) hashing: every backend gets a
 * score from hash(client, backend) and the highest usable score wins. When a backend goes down only its own clients
 * move (each to its second-best), and they come back when it is up again; a modulo hash would reshuffle nearly
 * everyone. O(backends) per pick, which is nothing for the few backends of a site.
 *
 * <p>Scores depend only on the client address and the backend's {@code host:port}, so they survive restarts and
 * reorderings of the backend list. A request without a known client address scores as client 0.
 */
final class IpHash implements LoadBalancer {
    @Override
    public Backend pick(Backends backends, InetAddress client, Collection<UpstreamPool> tried) {
        // InetAddress.hashCode is the IPv4 address itself, and a hash of the 16 bytes for IPv6: no allocation.
        long key = Backend.mix(client == null ? 0 : client.hashCode() + 0x9e3779b97f4a7c15L);
        Backend best = null;
        long bestScore = 0;
        for (int i = 0, n = backends.size(); i < n; i++) {
            Backend b = backends.get(i);
            long score = Backend.mix(key ^ b.hashSeed);
            if ((best == null || Long.compareUnsigned(score, bestScore) > 0) && backends.usable(b, tried)) {
                best = b;
                bestScore = score;
            }
        }
        return best;
    }
}
