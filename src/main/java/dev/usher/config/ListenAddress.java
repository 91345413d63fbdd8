package dev.usher.config;

/**
 * An address to bind: {@code ":80"}, {@code "8080"}, {@code "127.0.0.1:8080"} or {@code "[::1]:8080"}.
 *
 * @param host an IP literal (IPv6 without brackets), or {@code ""} for every interface
 * @param port 1–65535, or 0 for an ephemeral port (tests)
 */
public record ListenAddress(String host, int port) {
    /** True when the address binds every interface. */
    public boolean anyHost() {
        return host.isEmpty();
    }

    @Override
    public String toString() {
        return (host.isEmpty() ? "" : host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
