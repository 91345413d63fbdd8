package dev.usher.cert;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * A certificate chain (leaf first) with the leaf's private key: what an {@link Issuer} makes, the store keeps and a
 * TLS listener serves.
 *
 * @param chain leaf first, then intermediates; never empty
 * @param key   the leaf's private key
 */
public record CertifiedKey(List<X509Certificate> chain, PrivateKey key) {
    public CertifiedKey {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a certificate chain needs at least the leaf");
        }
    }

    /** The leaf certificate. */
    public X509Certificate leaf() {
        return chain.get(0);
    }

    /** Start of the leaf's validity. */
    public Instant notBefore() {
        return leaf().getNotBefore().toInstant();
    }

    /** End of the leaf's validity. */
    public Instant notAfter() {
        return leaf().getNotAfter().toInstant();
    }

    /** The leaf's whole validity period. */
    public Duration lifetime() {
        return Duration.between(notBefore(), notAfter());
    }

    /** When a third of the lifetime is left: the default renewal time when the CA suggests none. */
    public Instant renewalDue() {
        return notAfter().minus(lifetime().dividedBy(3));
    }

    /** True when a DNS or IP subject alternative name of the leaf matches {@code name} (a wildcard too). */
    public boolean covers(String name) {
        return CertificateFiles.covers(leaf(), name.toLowerCase(java.util.Locale.ROOT));
    }

    /** Lower-case hex SHA-256 of the leaf's DER encoding: the fingerprint browsers and {@code openssl} show. */
    public String sha256() {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(leaf().getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
