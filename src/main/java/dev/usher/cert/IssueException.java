package dev.usher.cert;

import java.time.Instant;
import java.util.Optional;

/**
 * A certificate could not be obtained. The message says why in words an operator can act on (for ACME: the CA's
 * problem document); {@link #retryAfter()} is set when the CA asked to wait (a rate limit).
 */
final class IssueException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Instant retryAfter;
    private final boolean heldElsewhere;

    public IssueException(String message, Throwable cause) {
        this(message, cause, null);
    }

    public IssueException(String message, Throwable cause, Instant retryAfter) {
        this(message, cause, retryAfter, false);
    }

    private IssueException(String message, Throwable cause, Instant retryAfter, boolean heldElsewhere) {
        super(message, cause);
        this.retryAfter = retryAfter;
        this.heldElsewhere = heldElsewhere;
    }

    /** Not a failure: another process or node holds the name's lock and is ordering it. */
    static IssueException heldElsewhere(String message) {
        return new IssueException(message, null, null, true);
    }

    /** True when another process or node is ordering the name (in a fleet, the normal case for all nodes but one). */
    boolean isHeldElsewhere() {
        return heldElsewhere;
    }

    /** The earliest time the CA will accept another attempt, when it said so. */
    public Optional<Instant> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
