package dev.usher.config;

/**
 * A DNS server to send queries or updates to: {@code ns1.example.com}, {@code 192.0.2.53:5353}, {@code [2001:db8::53]}.
 *
 * @param host a DNS name or an IP literal (IPv6 without brackets)
 * @param port 53 unless given
 */
public record DnsServer(String host, int port) {
    /** The port DNS servers listen on. */
    public static final int DEFAULT_PORT = 53;

    /** {@code host:port}, with brackets around an IPv6 literal. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** Reads {@code host}, {@code host:port}, {@code [v6]} or {@code [v6]:port}. */
    static DnsServer parse(String raw) throws BadValue {
        String s = raw.strip().toLowerCase(java.util.Locale.ROOT);
        if (s.isEmpty() || s.chars().anyMatch(Character::isWhitespace) || s.contains("://")) {
            throw new BadValue("expected a DNS server as host or host:port, e.g. 192.0.2.53 or ns1.example.com:53, "
                    + "found \"" + raw + "\"");
        }
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            String host = close < 0 ? "" : s.substring(1, close);
            String after = close < 0 ? "" : s.substring(close + 1);
            if (!HostNames.isIpv6(host) || !after.isEmpty() && !after.startsWith(":")) {
                throw new BadValue("\"" + raw + "\" is not a valid IPv6 address; write e.g. [2001:db8::53]:53");
            }
            return new DnsServer(host, after.isEmpty() ? DEFAULT_PORT : HostNames.port(after.substring(1), false));
        }
        int colon = s.indexOf(':');
        if (colon >= 0 && s.indexOf(':', colon + 1) >= 0) {
            if (HostNames.isIpv6(s)) {
                return new DnsServer(s, DEFAULT_PORT);
            }
            throw new BadValue("write an IPv6 address in brackets, e.g. [2001:db8::53]:53");
        }
        String host = colon < 0 ? s : s.substring(0, colon);
        int port = colon < 0 ? DEFAULT_PORT : HostNames.port(s.substring(colon + 1), false);
        if (host.endsWith(".") && host.length() > 1) {
            host = host.substring(0, host.length() - 1);
        }
        if (HostNames.looksLikeIpv4(host)) {
            if (!HostNames.isIpv4(host)) {
                throw new BadValue("\"" + host + "\" is not a valid IPv4 address");
            }
        } else {
            HostNames.checkDnsName(host, false);
        }
        return new DnsServer(host, port);
    }

    /** True when the host is an IP address (a resolver must be one: finding it by name would need a resolver). */
    boolean isIpLiteral() {
        return host.indexOf(':') >= 0 || HostNames.isIpv4(host);
    }
}
