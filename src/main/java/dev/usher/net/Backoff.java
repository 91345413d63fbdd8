package dev.usher.net;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The waits between attempts to reach a lost API (the Docker socket, CrowdSec's local API): doubling from
 * {@link #FIRST} to {@link #MOST}, each with up to a fifth of random spread so that many Ushers do not knock at once.
 * Back to the first wait after a success. Confined to the thread that retries.
 */
public final class Backoff {
    public static final Duration FIRST = Duration.ofMillis(250);
    public static final Duration MOST = Duration.ofSeconds(30);

    private final Duration first;
    private final Duration most;
    private Duration next;

    public Backoff() {
        this(FIRST, MOST);
    }

    public Backoff(Duration first, Duration most) {
        this.first = first;
        this.most = most;
        this.next = first;
    }

    /** The wait before the next attempt, and doubles the one after. */
    public Duration next() {
        Duration wait = next;
        next = next.multipliedBy(2).compareTo(most) > 0 ? most : next.multipliedBy(2);
        long spread = wait.toMillis() / 5;
        return wait.plusMillis(spread == 0 ? 0 : ThreadLocalRandom.current().nextLong(spread + 1));
    }

    /** An attempt succeeded: the next failure waits the first wait again. */
    public void reset() {
        next = first;
    }
}
