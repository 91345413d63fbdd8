package dev.usher.tls;

import dev.usher.cert.CertifiedKey;
import io.netty.handler.ssl.SslContext;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.net.ssl.SSLException;

/**
 * Server contexts by {@link CertifiedKey} identity, least recently used first out. A renewed certificate is a new
 * object and so gets a new context; the old one ages out once no lookup returns its key.
 *
 * <p>Thread-safe: event loops share one cache. The lock covers only map operations; a context is built outside it
 * (a few milliseconds), and when two loops race to build the same one the first stored wins.
 *
 * <p>Evicted contexts are not released by hand. They come from {@link io.netty.handler.ssl.SslProvider#OPENSSL} (or
 * the JDK provider): an {@code OpenSslContext} frees its native {@code SSL_CTX} when it becomes unreachable, and every
 * open connection's engine holds a strong reference to its context. Releasing at eviction instead would race with an
 * event loop that has just taken the context from the cache and not yet made an engine from it.
 */
final class ContextCache {
    /** Builds a context for a key; may fail when the key or chain is unusable. */
    @FunctionalInterface
    interface Builder {
        SslContext build(CertifiedKey key) throws SSLException;
    }

    private final Builder builder;
    private final Map<Identity, SslContext> contexts;

    ContextCache(int capacity, Builder builder) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.builder = builder;
        this.contexts = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Identity, SslContext> eldest) {
                return size() > capacity;
            }
        };
    }

    SslContext get(CertifiedKey key) throws SSLException {
        Identity identity = new Identity(key);
        synchronized (contexts) {
            SslContext cached = contexts.get(identity);
            if (cached != null) {
                return cached;
            }
        }
        SslContext built = builder.build(key);
        synchronized (contexts) {
            SslContext raced = contexts.putIfAbsent(identity, built);
            return raced != null ? raced : built;
        }
    }

    int size() {
        synchronized (contexts) {
            return contexts.size();
        }
    }

    /** A key compared by reference: a record's equals would compare whole chains and keys on every lookup. */
    private record Identity(CertifiedKey key) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Identity other && other.key == key;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(key);
        }
    }
}
