package dev.usher.cert;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;

/**
 * Stores a new certificate in the data directory, and when the directory refuses it (a full disk, say) stores it
 * again after the retry waits, for as long as it is the one in service: a certificate served from memory is not
 * ordered again at the next start.
 */
final class StoreRetry {
    private static final System.Logger LOG = System.getLogger(CertManager.class.getName());

    private final CertStorage store;
    private final Retry retry;

    StoreRetry(CertStorage store, Retry retry) {
        this.store = store;
        this.retry = retry;
    }

    /** Stores {@code cert} for {@code m}; false (logged) when the data directory refused it, a full disk say. */
    boolean tryStore(ManagedName m, CertifiedKey cert, int attempt) {
        try {
            store.save(m.issuer.id(), m.name, cert);
            if (attempt > 1) {
                LOG.log(Level.INFO, "{0}: the certificate in service is now stored in {1}", m.name, store.where());
            }
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: could not store the new certificate in {1}: {2}; it is served from memory, "
                    + "and storing it is tried again later", m.name, store.where(), e.toString());
            return false;
        }
    }

    /**
     * Tries storing {@code cert} again after the retry waits, for as long as it is the one {@code m} serves, under
     * the name's locks (so that an older certificate never overwrites a newer one another order stored).
     */
    void later(CertThreads threads, ManagedName m, CertifiedKey cert, int failures) {
        Duration wait = retry.after(failures);
        threads.later(wait, m.safely(() -> {
            if (m.current != cert || m.retired) {
                return; // replaced or no longer served: nothing of it to keep
            }
            m.ordering.lock();
            try (CertStorage.OrderLock held = store.tryLock(m.issuer.id(), m.name).orElse(null)) {
                if (held == null || m.current == cert && !tryStore(m, cert, failures + 1)) {
                    later(threads, m, cert, failures + 1);
                }
            } catch (IOException e) {
                later(threads, m, cert, failures + 1);
            } finally {
                m.ordering.unlock();
            }
        }));
    }
}
