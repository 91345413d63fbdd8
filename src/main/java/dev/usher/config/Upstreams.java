package dev.usher.config;

import java.util.Locale;

/**
 * Reads one backend address: {@code host:port}, {@code host} (port 80), {@code [v6]:port}, or any of these after
 * {@code http://}, {@code https://} (TLS, port 443 by default) or {@code h2c://} (cleartext HTTP/2). Hosts are IPv4
 * addresses, bracketed IPv6 addresses or DNS names, which may contain underscores here because docker-compose
 * service names can.
 */
final class Upstreams {
    static final String EXAMPLE = "app:80";

    private Upstreams() {
    }

    static UpstreamAddress parse(String raw) throws BadValue {
        String s = raw.strip();
        if (s.isEmpty()) {
            throw new BadValue("the upstream address is empty; write host:port, e.g. " + EXAMPLE);
        }
        if (s.indexOf(',') >= 0) {
            throw new BadValue("one address per upstream; for several, write a list: [a:80, b:80]");
        }
        if (s.chars().anyMatch(Character::isWhitespace)) {
            throw new BadValue("an upstream address cannot contain spaces");
        }
        UpstreamScheme kind = UpstreamScheme.HTTP;
        int scheme = s.indexOf("://");
        if (scheme >= 0) {
            String prefix = s.substring(0, scheme).toLowerCase(Locale.ROOT);
            kind = switch (prefix) {
                case "http" -> UpstreamScheme.HTTP;
                case "https" -> UpstreamScheme.HTTPS;
                case "h2c" -> UpstreamScheme.H2C;
                case "grpc", "h2" -> throw new BadValue("write h2c:// for cleartext HTTP/2 (gRPC without TLS), or "
                        + "https:// with upstream_tls: {alpn: [h2]} for HTTP/2 over TLS");
                case "grpcs", "wss" -> throw new BadValue("unsupported scheme \"" + s.substring(0, scheme + 3)
                        + "\"; write https:// (websockets and gRPC need no scheme of their own)");
                case "ws" -> throw new BadValue("unsupported scheme \"ws://\"; write http:// (websockets need no "
                        + "scheme of their own)");
                default -> throw new BadValue("unsupported scheme \"" + s.substring(0, scheme + 3)
                        + "\"; use http://, https://, h2c:// or host:port");
            };
            s = s.substring(scheme + 3);
        }
        int slash = SiteNames.indexOfAny(s, "/?#");
        if (slash >= 0 && !s.substring(slash).equals("/")) {
            throw new BadValue("an upstream cannot have a path (\"" + s.substring(slash)
                    + "\"); requests are forwarded with their own path (to put one in front, use paths: with "
                    + "add_prefix:)");
        }
        if (slash >= 0) {
            s = s.substring(0, slash);
        }
        if (s.indexOf('@') >= 0) {
            throw new BadValue("an upstream cannot contain user info (\"user@\")");
        }
        UpstreamAddress address = hostAndPort(s.toLowerCase(Locale.ROOT), kind.defaultPort());
        return new UpstreamAddress(address.host(), address.port(), kind, null);
    }

    /**
     * A backend of a stream or a passthrough site: {@code host:port}, {@code [v6]:port}, without a scheme (the bytes
     * are relayed as they are, whatever the protocol).
     *
     * @param defaultPort the port when none is written, or -1 when one must be
     */
    static UpstreamAddress parseRelay(String raw, int defaultPort) throws BadValue {
        String s = raw.strip();
        if (s.isEmpty()) {
            throw new BadValue("the backend address is empty; write host:port, e.g. gitea:22");
        }
        if (s.indexOf(',') >= 0) {
            throw new BadValue("one address per backend; for several, write a list: [a:22, b:22]");
        }
        if (s.chars().anyMatch(Character::isWhitespace)) {
            throw new BadValue("a backend address cannot contain spaces");
        }
        if (s.contains("://") || s.indexOf('/') >= 0) {
            throw new BadValue("a relayed backend is host:port, with no scheme or path (the bytes go through as "
                    + "they are); got \"" + s + "\"");
        }
        if (s.indexOf('@') >= 0) {
            throw new BadValue("a backend address cannot contain user info (\"user@\")");
        }
        return hostAndPort(s.toLowerCase(Locale.ROOT), defaultPort);
    }

    private static UpstreamAddress hostAndPort(String s, int defaultPort) throws BadValue {
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new BadValue("missing ']' after the IPv6 address");
            }
            String host = s.substring(1, close);
            String after = s.substring(close + 1);
            if (!HostNames.isIpv6(host) || !after.isEmpty() && !after.startsWith(":")) {
                throw new BadValue("\"" + s + "\" is not a valid IPv6 address; write e.g. [::1]:8080");
            }
            int port = after.isEmpty() ? defaultPort(s, defaultPort) : HostNames.port(after.substring(1), false);
            return new UpstreamAddress(host, port);
        }
        int colon = s.indexOf(':');
        if (colon >= 0 && s.indexOf(':', colon + 1) >= 0) {
            throw new BadValue("write an IPv6 address in brackets, e.g. [::1]:8080");
        }
        String host = colon < 0 ? s : s.substring(0, colon);
        int port = colon < 0 ? defaultPort(s, defaultPort) : HostNames.port(s.substring(colon + 1), false);
        if (host.endsWith(".") && host.length() > 1) {
            host = host.substring(0, host.length() - 1);
        }
        if (host.isEmpty()) {
            throw new BadValue("the host is missing; write host:port, e.g. " + EXAMPLE + " or 127.0.0.1:3000");
        }
        if (host.indexOf('*') >= 0) {
            throw new BadValue("an upstream cannot be a wildcard; name one backend host");
        }
        if (HostNames.looksLikeIpv4(host)) {
            if (host.indexOf('.') < 0 && colon < 0) {
                throw new BadValue("\"" + host + "\" is a port alone; write host:port, e.g. 127.0.0.1:" + host);
            }
            if (!HostNames.isIpv4(host)) {
                throw new BadValue("\"" + host + "\" is not a valid IPv4 address");
            }
        } else {
            HostNames.checkDnsName(host, true);
        }
        return new UpstreamAddress(host, port);
    }

    private static int defaultPort(String address, int defaultPort) throws BadValue {
        if (defaultPort < 0 && !address.isEmpty() && address.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new BadValue("\"" + address + "\" is a port alone; write host:port, e.g. 127.0.0.1:" + address);
        }
        if (defaultPort < 0) {
            throw new BadValue("the port is missing; write \"" + address + ":PORT\" (a relayed backend has no "
                    + "default port)");
        }
        return defaultPort;
    }
}
