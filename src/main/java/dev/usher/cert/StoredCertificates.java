package dev.usher.cert;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Puts in service for a {@link CertManager} the certificates that others stored: a backup restored into the data
 * directory, and, with a fleet's shared storage, another node's order or renewal (on the storage's change
 * notification, and every {@link #SHARED_CHECK} as a backstop). A renewal thus happens once in the fleet and every
 * node picks it up.
 *
 * <p>Threads: the manager's work threads; what it changes goes through the manager's {@code adopt}.
 */
final class StoredCertificates {
    private static final System.Logger LOG = System.getLogger(StoredCertificates.class.getName());
    /**
     * With a shared storage, how often every name is compared with what the fleet stored: the backstop for a
     * change notification missed while the storage was unreachable.
     */
    static final Duration SHARED_CHECK = Duration.ofSeconds(30);

    private final CertManager manager;
    private final CertStorage store;
    private final Clock clock;

    StoredCertificates(CertManager manager, CertStorage store, Clock clock) {
        this.manager = manager;
        this.store = store;
        this.clock = clock;
    }

    /** Follows the shared storage's changes from now on; when it comes back, looks again at the names that waited. */
    void follow(CertThreads threads) {
        store.watch((issuerId, name) -> threads.work().submit(() -> {
            adoptShared(issuerId, name);
            if (name == null) {
                retryFailed();
            }
        }));
        threads.every(SHARED_CHECK, () -> adoptShared(null, null));
    }

    /** Serves each name's stored certificate when it is valid and not the one served now (a restored backup). */
    void adoptRestored() {
        for (ManagedName m : manager.managed()) {
            if (m.issuer == null || m.retired) {
                continue;
            }
            Optional<CertifiedKey> stored = store.load(m.issuer.id(), m.name);
            CertifiedKey current = m.current;
            if (stored.isPresent() && stored.get().notAfter().isAfter(clock.instant())
                    && (current == null || !stored.get().sha256().equals(current.sha256()))) {
                manager.adopt(m, stored.get(), "the restored certificate");
            }
        }
    }

    /**
     * Serves what another node stored for {@code name} from {@code issuerId} (every name when null) if it is newer
     * than what is served here.
     */
    private void adoptShared(String issuerId, String name) {
        for (ManagedName m : manager.managed()) {
            if (m.issuer == null || m.issuer instanceof LocalCa || m.retired
                    || name != null && !(m.name.equals(name) && m.issuer.id().equals(issuerId))) {
                continue;
            }
            try {
                Optional<CertifiedKey> stored = store.load(m.issuer.id(), m.name);
                CertifiedKey current = m.current;
                if (stored.isPresent() && stored.get().notAfter().isAfter(clock.instant())
                        && CertManager.isNewer(stored.get(), current) && !stored.get().sha256().equals(
                        current == null ? "" : current.sha256())) {
                    manager.adopt(m, stored.get(), "the certificate another node stored");
                }
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "{0}: could not look at {1}: {2}", m.name, store.where(), e.toString());
            }
        }
    }

    /**
     * After the shared storage came back: the names whose orders or renewals waited for it are looked at now rather
     * than after their backoff, which grew while it was away.
     */
    private void retryFailed() {
        for (ManagedName m : manager.managed()) {
            if (m.issuer != null && !m.retired && m.failures > 0) {
                manager.checkNow(m);
            }
        }
    }
}
