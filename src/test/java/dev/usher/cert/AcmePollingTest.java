package dev.usher.cert;

import org.junit.jupiter.api.Test;
import org.shredzone.acme4j.PollableResource;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.exception.AcmeException;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Polling a challenge or order: quick first polls, the CA's Retry-After honoured, a deadline kept. */
class AcmePollingTest {
    private static final Set<Status> DONE = Set.of(Status.VALID, Status.INVALID);

    /** A resource that reports the given statuses, one per fetch, and the given Retry-After delays. */
    private static final class Scripted implements PollableResource {
        private final Deque<Status> statuses;
        private final Duration retryAfter;
        final List<Instant> fetches = new ArrayList<>();
        private Status status = Status.PENDING;

        Scripted(Duration retryAfter, Status... statuses) {
            this.retryAfter = retryAfter;
            this.statuses = new ArrayDeque<>(List.of(statuses));
        }

        @Override
        public Status getStatus() {
            return status;
        }

        @Override
        public Optional<Instant> fetch() {
            fetches.add(Instant.now());
            if (!statuses.isEmpty()) {
                status = statuses.poll();
            }
            return retryAfter == null ? Optional.empty() : Optional.of(Instant.now().plus(retryAfter));
        }
    }

    @Test
    void pollsQuicklyWhenTheCaSetsNoRetryAfter() throws Exception {
        Scripted resource = new Scripted(null, Status.PENDING, Status.PROCESSING, Status.VALID);
        Instant start = Instant.now();

        assertThat(AcmePolling.await(resource, DONE, Duration.ofSeconds(10))).isEqualTo(Status.VALID);

        assertThat(resource.fetches).hasSize(3);
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofMillis(1500)); // 250 + 500 ms
    }

    @Test
    void waitsAsLongAsTheCasRetryAfterSays() throws Exception {
        Scripted resource = new Scripted(Duration.ofMillis(900), Status.PENDING, Status.INVALID);

        assertThat(AcmePolling.await(resource, DONE, Duration.ofSeconds(10))).isEqualTo(Status.INVALID);

        assertThat(Duration.between(resource.fetches.get(0), resource.fetches.get(1)))
                .isGreaterThanOrEqualTo(Duration.ofMillis(850));
    }

    @Test
    void givesUpAtTheDeadline() {
        Scripted resource = new Scripted(null);
        Instant start = Instant.now();

        assertThatThrownBy(() -> AcmePolling.await(resource, DONE, Duration.ofSeconds(1)))
                .isInstanceOf(AcmeException.class).hasMessageContaining("still pending after 1 s");
        assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(2));
    }
}
