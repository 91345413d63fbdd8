package dev.usher.cert;

import dev.usher.config.TlsPolicy;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The certificate state of one site name: its policy, the certificate served now and what is scheduled next.
 * {@code current} is read by event loops (volatile); {@code next}, {@code failures} and {@code retired} are touched
 * under the manager's lock; {@code ordering} makes one order at a time per name within this process.
 */
final class ManagedName {
    private static final System.Logger LOG = System.getLogger(CertManager.class.getName());

    final String name;
    final TlsPolicy policy;
    /** Null for {@code FILES}, whose certificate the user renews. */
    final Issuer issuer;
    final ReentrantLock ordering = new ReentrantLock();
    volatile CertifiedKey current;
    /** When {@code current} was put in service: an attempt decided before then has nothing left to do. */
    volatile Instant currentSince = Instant.EPOCH;
    /** For {@code FILES}: the files' last-modified times when last read. */
    long certModified;
    long keyModified;
    /** Failed orders in a row (reset by a success). */
    int failures;
    /** Certificates in a row that were due for renewal the moment they arrived (a clock or CA problem). */
    int dueOnArrival;
    Future<?> next;
    /** Why the last order failed, or null after a success (for the admin API). */
    volatile String lastError;
    /** When the next renewal check or retry runs, or null when none is scheduled (for the admin API). */
    volatile Instant nextCheck;
    boolean retired;

    ManagedName(String name, TlsPolicy policy, Issuer issuer) {
        this.name = name;
        this.policy = policy;
        this.issuer = issuer;
    }

    /** True when this entry serves the same policy from the same issuer object, so a reload can keep it. */
    boolean sameAs(TlsPolicy otherPolicy, Issuer otherIssuer) {
        return policy.equals(otherPolicy) && issuer == otherIssuer;
    }

    /** What is known about this name at {@code now}, for status pages and metrics. */
    CertificateStatus status(Instant now) {
        CertifiedKey cert = current;
        String error = lastError;
        String state = cert != null && cert.notAfter().isAfter(now) ? "valid" : error != null ? "failed" : "pending";
        return new CertificateStatus(name, policy.toString(), issuer == null ? "files" : issuer.id(),
                cert == null ? null : cert.notAfter(), cert == null ? null : cert.sha256(),
                cert == null ? null : cert.notBefore(), state, issuer == null ? null : nextCheck, error);
    }

    /** A scheduled task for this name that logs whatever escapes it (an executor would swallow it silently). */
    Runnable safely(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Throwable t) {
                LOG.log(Level.ERROR, name + ": certificate task failed", t);
            }
        };
    }
}
