package dev.usher.cert;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ACME challenge answers currently published: HTTP-01 key authorizations by token (served on the HTTP listener
 * at {@code /.well-known/acme-challenge/TOKEN}) and TLS-ALPN-01 certificates by host name (served to a TLS client
 * that offers only {@code acme-tls/1}). Written by the issuer thread, read by event loops: thread-safe.
 */
public final class ChallengeAnswers {
    private final Map<String, String> http01 = new ConcurrentHashMap<>();
    private final Map<String, CertifiedKey> tlsAlpn01 = new ConcurrentHashMap<>();

    public void putHttp01(String token, String keyAuthorization) {
        http01.put(token, keyAuthorization);
    }

    public void removeHttp01(String token) {
        http01.remove(token);
    }

    /** The key authorization to answer for {@code token}, or null when none is published. */
    public String http01(String token) {
        return http01.get(token);
    }

    public void putTlsAlpn01(String name, CertifiedKey challengeCertificate) {
        tlsAlpn01.put(name.toLowerCase(java.util.Locale.ROOT), challengeCertificate);
    }

    public void removeTlsAlpn01(String name) {
        tlsAlpn01.remove(name.toLowerCase(java.util.Locale.ROOT));
    }

    /** The challenge certificate for {@code name}, or null when none is published. */
    public CertifiedKey tlsAlpn01(String name) {
        return tlsAlpn01.get(name.toLowerCase(java.util.Locale.ROOT));
    }
}
