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

    public IssueException(String message, Throwable cause) {
        this(message, cause, null);
    }

    public IssueException(String message, Throwable cause, Instant retryAfter) {
        super(message, cause);
        this.retryAfter = retryAfter;
    }

    /** The earliest time the CA will accept another attempt, when it said so. */
    public Optional<Instant> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
