package dev.usher.config;

/**
 * A site that answers every request with a redirect. The target may use placeholders: {@code {uri}} (path and
 * query), {@code {path}}, {@code {query}}, {@code {host}}, {@code {scheme}}.
 *
 * @param target the Location template, e.g. {@code https://example.com{uri}}
 * @param status 301, 302, 303, 307 or 308 (default 308)
 */
public record Redirect(String target, int status) {
}
