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
 * @param dns        how DNS-01 challenges are answered ({@code acme.dns}), or null when they are not
 */
public record AcmeSettings(URI directory, String email, Path trust, List<ChallengeType> challenges, DnsSettings dns) {
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
        if (challenges.contains(ChallengeType.DNS_01) != (dns != null)) {
            throw new IllegalArgumentException("dns-01 is answered exactly when DNS settings are given");
        }
    }

    /** Settings without DNS-01. */
    public AcmeSettings(URI directory, String email, Path trust, List<ChallengeType> challenges) {
        this(directory, email, trust, challenges, null);
    }

    /** These settings answering only DNS-01, through {@code site}'s own DNS settings ({@code tls: {dns: ...}}). */
    public AcmeSettings withDns(DnsSettings site) {
        return new AcmeSettings(directory, email, trust, List.of(ChallengeType.DNS_01), site);
    }

    /** True when DNS-01 is among the challenges answered, so a wildcard name can be certified. */
    public boolean answersDns01() {
        return dns != null;
    }

    /** An ACME challenge type Usher can answer. */
    public enum ChallengeType {
        /** A file at {@code http://NAME/.well-known/acme-challenge/TOKEN} on port 80. */
        HTTP_01("http-01"),
        /** A special certificate on port 443 for a client offering ALPN {@code acme-tls/1} (RFC 8737). */
        TLS_ALPN_01("tls-alpn-01"),
        /** A TXT record at {@code _acme-challenge.NAME}, published through a DNS provider ({@code acme.dns}). */
        DNS_01("dns-01");

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
