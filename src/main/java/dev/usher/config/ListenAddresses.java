package dev.usher.config;

import java.util.Locale;

/**
 * Reads a listen address: a port alone ({@code 8080} or {@code ":80"}, every interface), or an IP literal and a
 * port ({@code 127.0.0.1:8080}, {@code [::1]:8080}). {@code localhost} is taken as {@code 127.0.0.1}. A host
 * name other than that is refused: binding must not depend on a resolver.
 */
final class ListenAddresses {
    static final String EXAMPLES = "\":80\", \"8080\" or \"127.0.0.1:8080\"";

    private ListenAddresses() {
    }

    static ListenAddress parse(String raw) throws BadValue {
        String s = raw.strip();
        if (s.isEmpty()) {
            throw new BadValue("the listen address is empty; write " + EXAMPLES);
        }
        if (s.contains("://")) {
            throw new BadValue("a listen address has no scheme; write " + EXAMPLES);
        }
        if (s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return new ListenAddress("", HostNames.port(s, true));
        }
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            String host = close < 0 ? "" : s.substring(1, close);
            if (close < 0 || !HostNames.isIpv6(host)) {
                throw new BadValue("\"" + s + "\" is not a valid IPv6 address; write e.g. \"[::1]:8080\"");
            }
            String after = s.substring(close + 1);
            if (!after.startsWith(":")) {
                throw new BadValue("the port is missing; write e.g. \"[" + host + "]:80\"");
            }
            return new ListenAddress(host.toLowerCase(Locale.ROOT), HostNames.port(after.substring(1), true));
        }
        int colon = s.lastIndexOf(':');
        if (colon >= 0 && s.indexOf(':') != colon) {
            throw new BadValue("write an IPv6 address in brackets, e.g. \"[::1]:8080\"");
        }
        if (colon < 0) {
            if (s.equalsIgnoreCase("localhost") || HostNames.looksLikeIpv4(s)) {
                throw new BadValue("the port is missing; write e.g. \"" + s + ":80\"");
            }
            throw new BadValue("invalid listen address \"" + s + "\"; write " + EXAMPLES);
        }
        return new ListenAddress(host(s.substring(0, colon).toLowerCase(Locale.ROOT)),
                HostNames.port(s.substring(colon + 1), true));
    }

    private static String host(String host) throws BadValue {
        if (host.isEmpty()) {
            return host;
        }
        if (host.equals("localhost")) {
            return "127.0.0.1";
        }
        if (host.equals("*")) {
            throw new BadValue("to listen on every interface leave the host out, as in \":80\"");
        }
        if (!HostNames.isIpv4(host)) {
            throw new BadValue("the listen host \"" + host
                    + "\" must be an IP address, or left out for every interface, as in \":80\"");
        }
        return host;
    }
}
