package dev.usher.config;

/**
 * A backend a site forwards to: {@code app1:80}, {@code 10.0.0.7:8080}, {@code [::1]:3000}, {@code http://app:80}.
 *
 * @param host a DNS name or an IP literal (IPv6 without brackets), lower-case
 * @param port 1–65535; 80 when the file gives none
 */
public record UpstreamAddress(String host, int port) {
    /** {@code host:port}, with brackets around an IPv6 literal. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return authority();
    }
}
