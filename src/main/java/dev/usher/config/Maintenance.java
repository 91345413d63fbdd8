package dev.usher.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A site in maintenance ({@code maintenance:}): every request gets 503 with {@code Retry-After} and the page,
 * except from the allowed networks.
 *
 * @param flagFile   null: always on; otherwise on while this file exists (a deploy script touches and removes it)
 * @param allow      clients still served as usual (the operator checking the site)
 * @param retryAfter what {@code Retry-After} says
 * @param page       the page, or null for the site's 503 error page (or the built-in one)
 */
public record Maintenance(Path flagFile, List<Cidr> allow, Duration retryAfter, ErrorPage page) {
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofMinutes(5);

    public Maintenance {
        allow = List.copyOf(allow);
    }
}
