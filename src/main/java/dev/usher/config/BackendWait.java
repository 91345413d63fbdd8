package dev.usher.config;

import java.time.Duration;

/**
 * Riding out a backend restart ({@code wait_for_backend:}): a request whose backends are all down waits for one to
 * come back instead of getting an error at once.
 *
 * @param time        the longest a request waits (then the error it would have had)
 * @param maxRequests how many requests of the site may wait at once; more get the error at once
 */
public record BackendWait(Duration time, int maxRequests) {
    public static final int DEFAULT_MAX_REQUESTS = 256;
}
