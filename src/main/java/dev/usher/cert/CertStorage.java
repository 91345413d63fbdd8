package dev.usher.cert;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Where certificates, their keys and the ACME account keys are kept, and the lock taken around ordering one. Two
 * kinds: the data directory ({@link CertStore}, one machine) and a storage shared by a fleet of Usher instances
 * (Redis, in {@code dev.usher.fleet}), which keeps a local copy in the data directory and so always has one.
 *
 * <p>Calls may block on disk or network: they are made on the certificate threads, never on an event loop.
 */
public interface CertStorage extends AccountStore {
    /**
     * The stored certificate for {@code name} from {@code issuerId}, or empty when there is none (or it was damaged).
     * A shared storage that cannot be reached answers from its local copy.
     */
    Optional<CertifiedKey> load(String issuerId, String name);

    /** Stores {@code cert} for {@code name}, replacing what was there. */
    void save(String issuerId, String name, CertifiedKey cert) throws IOException;

    /** Removes what is stored for {@code name}; nothing when there is nothing. */
    void delete(String issuerId, String name) throws IOException;

    /** The names with a stored certificate from {@code issuerId}, sorted. */
    List<String> names(String issuerId) throws IOException;

    /**
     * The lock on ordering {@code name} from {@code issuerId} if no one else (no other process, no other node) holds
     * it; empty when held. Does not wait. A shared storage that cannot be reached throws: ordering alone could order
     * a name twice.
     */
    Optional<? extends OrderLock> tryLock(String issuerId, String name) throws IOException;

    /** The data directory: the local CA's home, and a shared storage's local copy. */
    CertStore local();

    /** Where this is, for messages: "the data directory /var/lib/usher", "Redis at 10.0.0.5:6379". */
    String where();

    /**
     * Calls {@code changed(issuerId, name)} when another node stored a certificate, and {@code changed(null, null)}
     * when the storage is reachable again after an outage (anything may have changed, and orders that waited for it
     * may go ahead). Never called for a storage only this process uses.
     */
    default void watch(BiConsumer<String, String> changed) {
    }

    /** True when other Usher instances share this storage, so their certificates must be picked up. */
    default boolean shared() {
        return false;
    }

    /** A lock held while one certificate is ordered; {@link #close} lets go of it. */
    interface OrderLock extends AutoCloseable {
        @Override
        void close() throws IOException;
    }
}
