package dev.usher.config;

import java.util.Locale;

/**
 * Reads a site's key: an optional {@code http://} (plain HTTP) or {@code https://} (the default) prefix, then a DNS
 * name, a one-label wildcard ({@code *.example.com}), {@code localhost}, an IPv4 address or a bracketed IPv6 address.
 * The name is lower-cased, a trailing dot dropped and IPv6 brackets removed.
 */
final class SiteNames {
    static final String WILDCARD_HINT = "a wildcard must cover a subdomain, e.g. *.example.com";

    /**
     * A site name as Usher uses it.
     *
     * @param name      lower-case, without scheme, trailing dot or IPv6 brackets
     * @param plainHttp true when written with {@code http://}
     */
    record SiteName(String name, boolean plainHttp) {
    }

    private SiteNames() {
    }

    static SiteName parse(String raw) throws BadValue {
        String s = raw.strip();
        if (s.isEmpty()) {
            throw new BadValue("a site name cannot be empty");
        }
        boolean plain = false;
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            String prefix = s.substring(0, scheme).toLowerCase(Locale.ROOT);
            if (prefix.equals("http")) {
                plain = true;
            } else if (!prefix.equals("https")) {
                throw new BadValue("unsupported scheme \"" + s.substring(0, scheme + 3)
                        + "\"; write http:// for a plain-HTTP site, or no scheme (or https://) for HTTPS");
            }
            s = s.substring(scheme + 3);
        }
        return new SiteName(host(s.toLowerCase(Locale.ROOT)), plain);
    }

    private static String host(String s) throws BadValue {
        if (s.indexOf(',') >= 0 || s.chars().anyMatch(Character::isWhitespace)) {
            throw new BadValue("a site has one name; give each name its own entry under sites:");
        }
        int slash = indexOfAny(s, "/?#");
        if (slash >= 0 && s.charAt(slash) != '/') {
            throw new BadValue("a site name cannot contain a query or fragment (\"" + s.substring(slash)
                    + "\"); a site is a host name");
        }
        if (slash >= 0 && !s.substring(slash).equals("/")) {
            throw new BadValue("a site name cannot contain a path (\"" + s.substring(slash)
                    + "\"); a site is a host name, and its paths go under paths: in its long form, as in "
                    + s.substring(0, slash) + ": {to: app:80, paths: {" + pathExample(s.substring(slash))
                    + ": api:8080}}");
        }
        if (slash >= 0) {
            s = s.substring(0, slash);
        }
        if (s.indexOf('@') >= 0) {
            throw new BadValue("a site name cannot contain '@'");
        }
        if (s.startsWith("[")) {
            return bracketed(s);
        }
        int colon = s.indexOf(':');
        if (colon >= 0 && s.indexOf(':', colon + 1) >= 0) {
            throw new BadValue("write an IPv6 address in brackets, e.g. [::1]");
        }
        if (colon >= 0) {
            throw portNotAllowed(s.substring(colon));
        }
        if (s.endsWith(".")) {
            s = s.substring(0, s.length() - 1);
        }
        if (s.indexOf('*') >= 0) {
            return wildcard(s);
        }
        if (HostNames.looksLikeIpv4(s)) {
            if (s.indexOf('.') < 0) {
                throw new BadValue("\"" + s + "\" is a number, not a host name; write a name such as "
                        + "app.example.com (ports belong in listen:)");
            }
            if (!HostNames.isIpv4(s)) {
                throw new BadValue("\"" + s + "\" is not a valid IPv4 address");
            }
            return s;
        }
        HostNames.checkDnsName(s, false);
        return s;
    }

    private static String bracketed(String s) throws BadValue {
        int close = s.indexOf(']');
        if (close < 0) {
            throw new BadValue("missing ']' after the IPv6 address");
        }
        String inner = s.substring(1, close);
        String after = s.substring(close + 1);
        if (after.startsWith(":")) {
            throw portNotAllowed(after);
        }
        if (!after.isEmpty() || !HostNames.isIpv6(inner)) {
            throw new BadValue("\"" + s + "\" is not a valid IPv6 address");
        }
        return inner;
    }

    private static String wildcard(String s) throws BadValue {
        if (s.equals("*") || s.equals("*.")) {
            throw new BadValue(WILDCARD_HINT);
        }
        if (!s.startsWith("*.") || s.indexOf('*', 1) >= 0) {
            throw new BadValue("a '*' may only stand for the whole first label, as in *.example.com");
        }
        String base = s.substring(2);
        if (HostNames.looksLikeIpv4(base)) {
            throw new BadValue("a wildcard needs a DNS name after \"*.\", not an IP address");
        }
        // *.localhost is the one single-label wildcard: every name under localhost is loopback (RFC 6761).
        if (base.indexOf('.') < 0 && !base.equals("localhost")) {
            throw new BadValue(WILDCARD_HINT);
        }
        HostNames.checkDnsName(base, false);
        return s;
    }

    private static BadValue portNotAllowed(String port) {
        return new BadValue("a site name cannot include a port (\"" + port + "\"); ports belong in listen:");
    }

    /** {@code /api} → {@code /api/}: the prefix pattern for a path written in a site name. */
    private static String pathExample(String path) {
        int end = indexOfAny(path, "?#");
        String p = end >= 0 ? path.substring(0, end) : path;
        return p.endsWith("/") || p.endsWith("*") ? p : p + "/";
    }

    static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
