package dev.usher.cert;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before trying again after a failed order: doubling from {@code first} up to {@code max}, with
 * ±25 % jitter so that many names failing together (the CA was down) do not all come back in the same second.
 *
 * @param first wait after the first failure
 * @param max   the longest wait
 */
public record Retry(Duration first, Duration max) {
    /** One minute, doubling, at most six hours (a CA outage rarely lasts longer; rate limits say their own time). */
    public static final Retry DEFAULT = new Retry(Duration.ofMinutes(1), Duration.ofHours(6));

    /** The wait after {@code failures} consecutive failures (1 = the first). */
    public Duration after(int failures) {
        long base = first.toMillis();
        long capped = Math.min(max.toMillis(), base << Math.min(Math.max(failures - 1, 0), 30));
        double jitter = 0.75 + ThreadLocalRandom.current().nextDouble() * 0.5;
        return Duration.ofMillis(Math.max(1, (long) (capped * jitter)));
    }
}
