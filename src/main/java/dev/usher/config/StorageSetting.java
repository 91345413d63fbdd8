package dev.usher.config;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * {@code storage:}: the Redis that several Usher instances (a fleet) share certificates, keys, the ACME account and
 * challenge answers through. Without it (null in {@link UsherConfig#storage}) everything lives in the data directory
 * only, as it always did; with it the data directory keeps each node's local copy.
 *
 * @param redis         {@code redis: redis://host:6379/0} (or {@code rediss://}), or null with Sentinel
 * @param sentinel      {@code redis_sentinel: {master, nodes}}, or null with a plain address
 * @param password      the Redis password ({@code password_file:} or {@code password: ${VARIABLE}}), or null
 * @param tls           talk TLS to Redis (also implied by {@code rediss://})
 * @param encryptionKey the 32-byte AES key that seals private keys at rest in Redis ({@code encryption_key_file:})
 * @param node          this instance's name in the fleet ({@code node:}; default: the host name)
 * @param lease         how long an order lock lives without being renewed: a crashed holder's lock frees after it
 */
public record StorageSetting(URI redis, Sentinel sentinel, Secret password, boolean tls, byte[] encryptionKey,
                             String node, Duration lease) {
    public static final Duration DEFAULT_LEASE = Duration.ofMinutes(1);

    /** {@code redis_sentinel:}: the master's name and the Sentinels to ask where it is. */
    public record Sentinel(String master, List<String> nodes) {
        public Sentinel {
            nodes = List.copyOf(nodes);
        }
    }

    public StorageSetting {
        encryptionKey = encryptionKey.clone();
        Objects.requireNonNull(node);
        Objects.requireNonNull(lease);
        if ((redis == null) == (sentinel == null)) {
            throw new IllegalArgumentException("give a Redis address or a Sentinel, one of them");
        }
    }

    @Override
    public byte[] encryptionKey() {
        return encryptionKey.clone();
    }

    /** Where the storage is, for logs and the admin API: no password, no key. */
    public String where() {
        return redis != null ? "Redis at " + redis.getHost() + ":" + (redis.getPort() == -1 ? 6379 : redis.getPort())
                : "Redis master " + sentinel.master() + " via Sentinel " + String.join(", ", sentinel.nodes());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StorageSetting s && Objects.equals(redis, s.redis) && Objects.equals(sentinel, s.sentinel)
                && Objects.equals(password, s.password) && tls == s.tls && Arrays.equals(encryptionKey, s.encryptionKey)
                && node.equals(s.node) && lease.equals(s.lease);
    }

    @Override
    public int hashCode() {
        return Objects.hash(redis, sentinel, password, tls, Arrays.hashCode(encryptionKey), node, lease);
    }

    @Override
    public String toString() {
        return "StorageSetting[" + where() + (tls ? ", tls" : "") + ", node " + node + ", lease " + lease + "]";
    }
}
