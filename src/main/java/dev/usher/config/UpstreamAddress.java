package dev.usher.config;

/**
 * A backend a site forwards to: {@code app1:80}, {@code 10.0.0.7:8080}, {@code [::1]:3000}, {@code http://app:80},
 * {@code https://10.0.0.5:8006}, {@code h2c://grpc:50051}. Two addresses that differ only in scheme or TLS settings
 * are two backends, each with its own connection pool.
 *
 * @param host   a DNS name or an IP literal (IPv6 without brackets), lower-case
 * @param port   1–65535; the scheme's default (80, or 443 for https) when the file gives none
 * @param scheme how Usher speaks to it
 * @param tls    for {@link UpstreamScheme#HTTPS}: the site's {@code upstream_tls} (or {@link UpstreamTls#DEFAULT});
 *               null for the other schemes
 */
public record UpstreamAddress(String host, int port, UpstreamScheme scheme, UpstreamTls tls) {
    public UpstreamAddress {
        if (scheme == null) {
            scheme = UpstreamScheme.HTTP;
        }
        if (scheme == UpstreamScheme.HTTPS && tls == null) {
            tls = UpstreamTls.DEFAULT;
        } else if (scheme != UpstreamScheme.HTTPS) {
            tls = null;
        }
    }

    /** A plain HTTP/1.1 backend. */
    public UpstreamAddress(String host, int port) {
        this(host, port, UpstreamScheme.HTTP, null);
    }

    /** {@code host:port}, with brackets around an IPv6 literal. */
    public String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** This backend with other TLS settings (only an https:// one has any). */
    public UpstreamAddress withTls(UpstreamTls settings) {
        return new UpstreamAddress(host, port, scheme, settings);
    }

    /** True when Usher may speak HTTP/2 to it: {@code h2c://}, or {@code https://} offering h2 in ALPN. */
    public boolean mayUseH2() {
        return scheme == UpstreamScheme.H2C || scheme == UpstreamScheme.HTTPS && tls.offersH2();
    }

    /** {@code host:port} for plain HTTP, with the scheme for the others: {@code https://10.0.0.5:8006}. */
    @Override
    public String toString() {
        return scheme == UpstreamScheme.HTTP ? authority() : scheme.prefix() + authority();
    }
}
