package dev.usher.cert;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Makes certificates for one host name: an ACME CA, Usher's local CA. Calls block (network, key generation) and are
 * made off the event loops.
 */
interface Issuer {
    /** A stable, file-name-safe identifier: the folder under {@code certificates/} where its certificates live. */
    String id();

    /** Obtains a new certificate (with a new key) for {@code name}, a DNS name, a {@code *.} wildcard or an IP. */
    CertifiedKey issue(String name) throws IssueException;

    /**
     * When {@code current} should be renewed, if the issuer knows better than "a third of the lifetime left" (ACME
     * Renewal Information, RFC 9773: a time chosen inside the CA's suggested window). Empty: use
     * {@link CertifiedKey#renewalDue()}.
     */
    default Optional<Instant> renewalTime(CertifiedKey current) {
        return Optional.empty();
    }

    /** The longest one {@link #issue} may take before it is given up (and retried later). */
    default Duration deadline() {
        return Duration.ofMinutes(10);
    }

    /** Lets go of what the issuer holds, once Usher no longer uses it; {@link #issue} calls in flight end first. */
    default void close() {
    }
}
