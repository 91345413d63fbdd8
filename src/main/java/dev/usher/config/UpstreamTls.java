package dev.usher.config;

import java.nio.file.Path;
import java.util.List;

/**
 * How Usher checks and presents itself to an {@code https://} backend: a site's {@code upstream_tls:}, with its PEM
 * files read when the config was loaded (so a changed file is a changed setting, and a missing one a config error).
 *
 * @param caFile             the CA certificates to trust instead of the system's, or null for the system trust store
 * @param caPem              that file's text, or null
 * @param serverName         the name to send in SNI and check the certificate against, or null for the backend's host
 *                           (no SNI for an IP address)
 * @param insecureSkipVerify accept any certificate (a warning at load, and shown in the admin UI)
 * @param clientCertFile     the certificate chain Usher presents, or null for none
 * @param clientCertPem      that file's text, or null
 * @param clientKeyFile      its private key, or null
 * @param clientKeyPem       that file's text, or null (never printed)
 * @param alpn               protocols offered in ALPN, in order of preference: {@code [http/1.1]} by default,
 *                           {@code [h2, http/1.1]} for HTTP/2 when the backend offers it
 */
public record UpstreamTls(Path caFile, String caPem, String serverName, boolean insecureSkipVerify,
                          Path clientCertFile, String clientCertPem, Path clientKeyFile, String clientKeyPem,
                          List<String> alpn) {
    public static final String H2 = "h2";
    public static final String HTTP_1_1 = "http/1.1";
    /** The system trust store, the backend's own name, HTTP/1.1. */
    public static final UpstreamTls DEFAULT = new UpstreamTls(null, null, null, false, null, null, null, null,
            List.of(HTTP_1_1));

    public UpstreamTls {
        alpn = List.copyOf(alpn);
    }

    /** True when HTTP/2 is offered to the backend. */
    public boolean offersH2() {
        return alpn.contains(H2);
    }

    /** True when Usher presents a client certificate. */
    public boolean clientCertificate() {
        return clientCertPem != null;
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return "UpstreamTls[ca=" + caFile + ", server_name=" + serverName + ", insecure_skip_verify="
                + insecureSkipVerify + ", client_cert=" + clientCertFile + ", alpn=" + alpn + "]";
    }
}
