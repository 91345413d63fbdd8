package dev.usher.route;

import dev.usher.config.SitePath;

/**
 * One compiled entry of a site's {@code paths:}: how it matches a normalised path, the route its requests take, and
 * how their path is rewritten for the backend ({@code strip_prefix}, {@code add_prefix}).
 */
public final class PathRoute {
    private final SitePath path;
    private final Route route;
    private final String literal;
    private final String stripped;

    PathRoute(SitePath path, Route route) {
        this.path = path;
        this.route = route;
        this.literal = path.literal();
        this.stripped = path.strippedPart();
    }

    /** The entry as configured. */
    public SitePath path() {
        return path;
    }

    /** Where its requests go, with their rules. */
    public Route route() {
        return route;
    }

    /** The pattern as written, for the access log: {@code /api/}. */
    public String pattern() {
        return path.pattern();
    }

    int literalLength() {
        return literal.length();
    }

    /** True when the path {@code uri[0, end)} matches. */
    boolean matches(String uri, int end) {
        int n = literal.length();
        if (end < n || !uri.regionMatches(0, literal, 0, n)) {
            return false;
        }
        return path.match() != SitePath.Match.EXACT || end == n;
    }

    /** True when the path {@code uri[0, end)} is this prefix without its last slash ({@code /api} for {@code /api/}). */
    boolean isPrefixWithoutSlash(String uri, int end) {
        int n = literal.length();
        return path.match() == SitePath.Match.PREFIX && end == n - 1 && uri.regionMatches(0, literal, 0, n - 1);
    }

    /**
     * The request target for the backend: the matched part taken off when {@code strip_prefix} (what remains always
     * starts with "/"), {@code add_prefix} put before, the query as it was. {@code uri} is already normalised;
     * {@code matched} is what it matched as ({@link RequestPaths#matchForm}), whose slashes are used only when an
     * escaped one stood inside the stripped part.
     */
    public String rewrite(String uri, String matched) {
        if (!path.stripPrefix() && path.addPrefix().isEmpty()) {
            return uri;
        }
        if (path.stripPrefix() && !uri.startsWith(stripped)) {
            uri = matched;
        }
        String rest = path.stripPrefix() ? uri.substring(stripped.length()) : uri;
        if (rest.isEmpty() || rest.charAt(0) != '/') {
            rest = "/" + rest;
        }
        return path.addPrefix().isEmpty() ? rest : path.addPrefix() + rest;
    }

    /** What {@code X-Forwarded-Prefix} tells the backend when the prefix was stripped: {@code /api}; else null. */
    public String forwardedPrefix() {
        return path.stripPrefix() ? stripped : null;
    }
}
