package dev.usher.cert;

/**
 * Where the TLS listener asks which certificate to serve for a server name. The certificate manager implements it
 * (exact names first, then wildcards); the TLS side only asks.
 *
 * <p>Called on an event loop for every new TLS connection, so an implementation must not block: a lookup in a map
 * that another thread replaces is what fits.
 */
@FunctionalInterface
public interface CertificateSource {
    /**
     * The certificate to serve for {@code serverName}, or null when Usher has none for it.
     *
     * @param serverName the client's SNI host name in lower case, or the connection's local IP address as a string
     *                   ({@code 127.0.0.1}, {@code ::1}) when the client sent no SNI
     */
    CertifiedKey certificateFor(String serverName);
}
