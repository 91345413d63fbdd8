package dev.usher.config;

/**
 * One entry of a site's {@code paths:}: the requests whose path matches {@code pattern} go where the entry says,
 * with the site's options except those the entry sets itself.
 *
 * @param pattern     as written: {@code /api/} (a prefix), {@code /healthz} (exact), {@code /files*} (starts with)
 * @param match       which of the three kinds
 * @param stripPrefix the matched part ({@code /api}) is taken off the path before it goes on
 * @param addPrefix   put before the (possibly stripped) path, such as {@code /v1}; empty for none
 * @param site        the site as this path sees it: its own backends, redirect or fixed answer (or the site's when
 *                    it names none), and every option, the path's own where it sets one
 * @param ownTarget   true when the entry names what serves it ({@code to}, {@code redirect}, {@code respond});
 *                    false when it serves with the site's default and only changes options (such as basic_auth)
 */
public record SitePath(String pattern, Match match, boolean stripPrefix, String addPrefix, Site site,
                       boolean ownTarget) {
    /** How a pattern matches a request's (normalised) path. */
    public enum Match {
        /** {@code /api/}: the path starts with the pattern. */
        PREFIX,
        /** {@code /healthz}: the path is the pattern. */
        EXACT,
        /** {@code /files*}: the path starts with what comes before the star. */
        STARTS_WITH
    }

    /** What a path must start with (or be) to match: the pattern without its star. */
    public String literal() {
        return match == Match.STARTS_WITH ? pattern.substring(0, pattern.length() - 1) : pattern;
    }

    /** The part taken off by {@code strip_prefix}: the literal without a trailing slash ({@code /api}). */
    public String strippedPart() {
        String literal = literal();
        return literal.endsWith("/") ? literal.substring(0, literal.length() - 1) : literal;
    }
}
