package dev.usher.config;

/**
 * A site (or a fallback) that answers every request itself with a fixed status and body ({@code respond:}).
 *
 * @param status      200–599 but not a redirect status (those are {@link Redirect}s); default 200
 * @param body        the body, may be empty (always empty for 204 and 304)
 * @param contentType the Content-Type (default {@code text/plain; charset=utf-8})
 */
public record FixedAnswer(int status, String body, String contentType) {
}
