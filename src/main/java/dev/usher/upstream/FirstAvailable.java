package dev.usher.upstream;

import java.net.InetAddress;
import java.util.Collection;

/**
 * Failover: the first usable backend in config order. The others take traffic only while those before them are down
 * (or already failed this request).
 */
final class FirstAvailable implements LoadBalancer {
    @Override
    public Backend pick(Backends backends, InetAddress client, Collection<UpstreamPool> tried) {
        for (int i = 0, n = backends.size(); i < n; i++) {
            Backend b = backends.get(i);
            if (backends.usable(b, tried)) {
                return b;
            }
        }
        return null;
    }
}
