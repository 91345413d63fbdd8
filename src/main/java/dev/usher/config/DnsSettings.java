package dev.usher.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * How Usher answers DNS-01 challenges ({@code acme: {dns: ...}} for every ACME name, or a site's {@code tls: {dns:
 * ...}}): the provider that puts the TXT record in place, and how long to wait until every authoritative server of
 * the zone answers with it.
 *
 * @param provider           who publishes and removes the TXT records
 * @param zone               the zone the records go in; null: found by an SOA lookup of the record's name
 * @param propagationTimeout how long every authoritative server may take to answer with the record
 * @param resolvers          the recursive resolvers that follow CNAMEs and find zones and their name servers; empty:
 *                           the system's ({@code /etc/resolv.conf})
 * @param nameserverPort     the port the zone's authoritative servers are asked on (53; another for a test setup)
 */
public record DnsSettings(Provider provider, String zone, Duration propagationTimeout, List<DnsServer> resolvers,
                          int nameserverPort) {
    /** The default of {@code propagation_timeout}. */
    public static final Duration DEFAULT_PROPAGATION_TIMEOUT = Duration.ofMinutes(2);

    public DnsSettings {
        resolvers = List.copyOf(resolvers);
    }

    /** A DNS provider's settings. {@link #name()} is the word used in {@code provider:}. */
    public sealed interface Provider permits Rfc2136, Cloudflare, AcmeDns, Exec {
        String name();
    }

    /**
     * RFC 2136 dynamic updates signed with a TSIG key (BIND, Knot, PowerDNS, many routers).
     *
     * @param server       the primary server that accepts the updates
     * @param keyName      the TSIG key's name
     * @param keyAlgorithm the TSIG algorithm, e.g. {@code hmac-sha256}
     * @param keySecret    the key's secret (base64)
     */
    public record Rfc2136(DnsServer server, String keyName, String keyAlgorithm, Secret keySecret)
            implements Provider {
        @Override
        public String name() {
            return "rfc2136";
        }
    }

    /**
     * Cloudflare's DNS records API with an API token allowed to edit the zone's DNS.
     *
     * @param token  the API token
     * @param zoneId the zone's id; null: looked up by the zone's name
     * @param api    the API base, {@code https://api.cloudflare.com/client/v4} unless given
     */
    public record Cloudflare(Secret token, String zoneId, URI api) implements Provider {
        public static final URI DEFAULT_API = URI.create("https://api.cloudflare.com/client/v4");

        @Override
        public String name() {
            return "cloudflare";
        }
    }

    /**
     * An acme-dns server: {@code _acme-challenge.NAME} is a CNAME to the account's {@code fulldomain}, whose TXT
     * records the server's {@code /update} endpoint sets.
     *
     * @param server     the acme-dns API base, e.g. {@code https://auth.acme-dns.io}
     * @param username   the account's user (X-Api-User)
     * @param password   the account's key (X-Api-Key)
     * @param fulldomain the account's domain, {@code SUBDOMAIN.auth.example.org}
     */
    public record AcmeDns(URI server, String username, Secret password, String fulldomain) implements Provider {
        @Override
        public String name() {
            return "acme-dns";
        }

        /** The account's subdomain: the first label of {@code fulldomain}. */
        public String subdomain() {
            int dot = fulldomain.indexOf('.');
            return dot < 0 ? fulldomain : fulldomain.substring(0, dot);
        }
    }

    /**
     * A program called as {@code COMMAND... present|cleanup FQDN VALUE}, like lego's and certbot's hooks.
     *
     * @param command the program and its first arguments
     * @param timeout how long one call may take
     */
    public record Exec(List<String> command, Duration timeout) implements Provider {
        public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

        public Exec {
            command = List.copyOf(command);
        }

        @Override
        public String name() {
            return "exec";
        }
    }

    /** The provider and what it is told to talk to, without secrets: for status pages and logs. */
    public String describe() {
        return switch (provider) {
            case Rfc2136 r -> "rfc2136 via " + r.server() + " (key " + r.keyName() + ")";
            case Cloudflare c -> "cloudflare" + (c.api().equals(Cloudflare.DEFAULT_API) ? "" : " at " + c.api());
            case AcmeDns a -> "acme-dns at " + a.server() + " (" + a.fulldomain() + ")";
            case Exec e -> "exec " + e.command().get(0);
        };
    }
}
