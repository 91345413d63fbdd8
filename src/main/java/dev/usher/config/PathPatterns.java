package dev.usher.config;

/**
 * Reads the key of one entry of {@code paths:}, and an {@code add_prefix:}. A pattern starts with {@code /} and is
 * one of: a prefix ending in {@code /} ({@code /api/}), an exact path ({@code /healthz}), or anything followed by a
 * {@code *} ({@code /files*}). Requests are matched after normalisation (see the route package's
 * {@code RequestPaths}), so a pattern must be written normalised itself: no percent-escapes, no {@code .} or
 * {@code ..} segments, no backslashes; otherwise it could never match.
 */
final class PathPatterns {
    private PathPatterns() {
    }

    /** The kind of {@code pattern}, which is then valid as written. */
    static SitePath.Match parse(String pattern) throws BadValue {
        if (!pattern.startsWith("/")) {
            throw new BadValue("a path starts with \"/\", as in /api/; got \"" + pattern + "\"");
        }
        if (pattern.equals("/") || pattern.equals("/*")) {
            throw new BadValue("\"" + pattern + "\" is every path: that is the site's own to: (or redirect:, "
                    + "respond:); set it on the site instead");
        }
        int star = pattern.indexOf('*');
        if (star >= 0 && star != pattern.length() - 1) {
            throw new BadValue("a '*' may only end a path, as in /files*; got \"" + pattern + "\"");
        }
        checkCharacters(pattern, "a path");
        if (star >= 0) {
            return SitePath.Match.STARTS_WITH;
        }
        return pattern.endsWith("/") ? SitePath.Match.PREFIX : SitePath.Match.EXACT;
    }

    /** An {@code add_prefix}: {@code /v1}; a trailing slash is dropped (the path that follows brings its own). */
    static String addPrefix(String text) throws BadValue {
        String prefix = text.strip();
        if (!prefix.startsWith("/")) {
            throw new BadValue("add_prefix starts with \"/\", as in /v1; got \"" + prefix + "\"");
        }
        if (prefix.indexOf('*') >= 0) {
            throw new BadValue("add_prefix is a fixed path, without '*'");
        }
        checkCharacters(prefix, "add_prefix");
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        return prefix;
    }

    private static void checkCharacters(String path, String what) throws BadValue {
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '?' || c == '#') {
                throw new BadValue(what + " matches the path only, never the query (\"" + path.substring(i)
                        + "\"); remove it");
            }
            if (c <= ' ' || c >= 0x7f) {
                throw new BadValue(what + " cannot contain spaces, control or non-ASCII characters");
            }
            if (c == '%') {
                throw new BadValue(what + " is written decoded (requests are decoded before matching): no '%' "
                        + "escapes in \"" + path + "\"");
            }
            if (c == '\\') {
                throw new BadValue(what + " cannot contain a backslash");
            }
        }
        for (String segment : path.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..")) {
                throw new BadValue(what + " cannot contain \".\" or \"..\" segments (requests are resolved before "
                        + "matching): \"" + path + "\"");
            }
        }
    }
}
