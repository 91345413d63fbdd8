package dev.usher.cert;

import dev.usher.config.TlsPolicy;

import java.util.concurrent.Future;

/**
 * The certificate state of one site name: its policy, the certificate served now and what is scheduled next.
 * {@code current} is read by event loops (volatile); the rest is touched only under the manager's lock.
 */
final class ManagedName {
    final String name;
    final TlsPolicy policy;
    /** Null for {@code FILES}, whose certificate the user renews. */
    final Issuer issuer;
    volatile CertifiedKey current;
    /** For {@code FILES}: the files' last-modified times when last read. */
    long certModified;
    long keyModified;
    int failures;
    Future<?> next;
    boolean retired;

    ManagedName(String name, TlsPolicy policy, Issuer issuer) {
        this.name = name;
        this.policy = policy;
        this.issuer = issuer;
    }

    /** True when this entry serves the same policy from the same issuer, so a reload can keep it. */
    boolean sameAs(TlsPolicy otherPolicy, Issuer otherIssuer) {
        return policy.equals(otherPolicy) && (issuer == null ? otherIssuer == null
                : otherIssuer != null && issuer.id().equals(otherIssuer.id()));
    }
}
