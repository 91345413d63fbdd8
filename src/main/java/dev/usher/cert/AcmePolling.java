package dev.usher.cert;

import org.shredzone.acme4j.PollableResource;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.exception.AcmeException;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

/**
 * Polls an ACME resource (challenge, order) until it reaches a terminal status. Unlike acme4j's own
 * {@code waitForStatus}, which waits a flat 3 seconds whenever the CA sends no Retry-After, this starts at a quarter
 * second and doubles up to 3 seconds: most validations finish within a second. A Retry-After from the CA always
 * wins (bounded by the deadline).
 */
final class AcmePolling {
    private static final Duration FIRST = Duration.ofMillis(250);
    private static final Duration MAX = Duration.ofSeconds(3);

    private AcmePolling() {
    }

    /** The terminal status reached; throws when {@code timeout} passes first. */
    static Status await(PollableResource resource, Set<Status> terminal, Duration timeout)
            throws AcmeException, InterruptedException {
        if (terminal.contains(resource.getStatus())) {
            return resource.getStatus();
        }
        Instant deadline = Instant.now().plus(timeout);
        Duration backoff = FIRST;
        while (true) {
            Optional<Instant> retryAfter = resource.fetch();
            Status status = resource.getStatus();
            if (terminal.contains(status)) {
                return status;
            }
            Instant now = Instant.now();
            Instant next = retryAfter.filter(now::isBefore).orElse(now.plus(backoff));
            if (!next.isBefore(deadline)) {
                throw new AcmeException("still " + status.name().toLowerCase(java.util.Locale.ROOT) + " after "
                        + timeout.toSeconds() + " s");
            }
            Thread.sleep(Duration.between(now, next));
            backoff = backoff.multipliedBy(2).compareTo(MAX) > 0 ? MAX : backoff.multipliedBy(2);
        }
    }
}
