package dev.usher.config;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * How Usher talks to its ACME CA ({@code email:} and {@code acme:} in the file).
 *
 * @param directory  the CA's directory URL; Let's Encrypt's production directory by default
 * @param email      contact address given to the CA (expiry warnings, account recovery), or null
 * @param trust      a PEM file with the root(s) that the CA's own HTTPS endpoint is checked against, for a private CA
 *                   or Pebble; null to use the JDK's trust store
 * @param challenges the challenge types Usher may answer, in order of preference; never empty
 */
public record AcmeSettings(URI directory, String email, Path trust, List<ChallengeType> challenges) {
    /** Let's Encrypt's production directory. */
    public static final URI LETS_ENCRYPT = URI.create("https://acme-v02.api.letsencrypt.org/directory");
    /** Let's Encrypt's staging directory (untrusted certificates, generous rate limits). */
    public static final URI LETS_ENCRYPT_STAGING = URI.create("https://acme-staging-v02.api.letsencrypt.org/directory");

    public static final AcmeSettings DEFAULTS =
            new AcmeSettings(LETS_ENCRYPT, null, null, List.of(ChallengeType.HTTP_01, ChallengeType.TLS_ALPN_01));

    public AcmeSettings {
        challenges = List.copyOf(challenges);
        if (challenges.isEmpty()) {
            throw new IllegalArgumentException("at least one challenge type");
        }
    }

    /** An ACME challenge type Usher can answer. */
    public enum ChallengeType {
        /** A file at {@code http://NAME/.well-known/acme-challenge/TOKEN} on port 80. */
        HTTP_01("http-01"),
        /** A special certificate on port 443 for a client offering ALPN {@code acme-tls/1} (RFC 8737). */
        TLS_ALPN_01("tls-alpn-01");

        private final String id;

        ChallengeType(String id) {
            this.id = id;
        }

        /** The name used in ACME and in the config file. */
        public String id() {
            return id;
        }
    }
}
