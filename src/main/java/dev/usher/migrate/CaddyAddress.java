package dev.usher.migrate;

import java.util.Locale;

/**
 * A Caddyfile site address ({@code example.com}, {@code http://example.com}, {@code example.com:8443},
 * {@code [::1]:443}, {@code :8080}) as a host name and plain-or-HTTPS, or why Usher cannot have it: a site for
 * every name, a path, or a port other than the HTTP and HTTPS ones (Usher listens on one of each).
 *
 * @param host      the host, or null
 * @param plainHttp served over plain HTTP
 * @param problem   why the address cannot be carried over, or null
 */
record CaddyAddress(String host, boolean plainHttp, String problem) {
    static CaddyAddress parse(String raw, CaddyGlobals globals) {
        String s = raw.strip();
        String scheme = null;
        int sep = s.indexOf("://");
        if (sep >= 0) {
            scheme = s.substring(0, sep).toLowerCase(Locale.ROOT);
            s = s.substring(sep + 3);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return problem("the scheme " + scheme + ":// has no counterpart in Usher");
            }
        }
        int slash = s.indexOf('/');
        if (slash >= 0) {
            if (!s.substring(slash).equals("/") && !s.substring(slash).equals("/*")) {
                return problem("a site address with a path (" + s.substring(slash) + "): Usher routes by host name "
                        + "only");
            }
            s = s.substring(0, slash);
        }
        String host = s;
        Integer port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            host = close < 0 ? s : s.substring(0, close + 1);
            String rest = close < 0 ? "" : s.substring(close + 1);
            if (rest.startsWith(":") && rest.length() > 1) {
                port = parsePort(rest.substring(1));
            }
        } else if (s.lastIndexOf(':') >= 0) {
            host = s.substring(0, s.lastIndexOf(':'));
            port = parsePort(s.substring(s.lastIndexOf(':') + 1));
        }
        if (host.isEmpty() || host.equals("*") || host.contains("{")) {
            return problem("a site for every name (or a placeholder): Usher serves only the names it has sites for "
                    + "and answers 404 for the rest");
        }
        boolean plain = "http".equals(scheme);
        if (port != null) {
            if (port == -1) {
                return problem("the port is not a number");
            }
            if (port == globals.httpPort && !"https".equals(scheme)) {
                plain = true;
            } else if (port != globals.httpsPort) {
                return problem("port " + port + ": Usher listens on one HTTP port (" + globals.httpPort + ") and one "
                        + "HTTPS port (" + globals.httpsPort + ")");
            }
        }
        return new CaddyAddress(host, plain, null);
    }

    private static int parsePort(String text) {
        return text.matches("\\d{1,5}") ? Integer.parseInt(text) : -1;
    }

    private static CaddyAddress problem(String why) {
        return new CaddyAddress(null, false, why);
    }
}
