package dev.usher.dns;

/**
 * One TXT record a DNS-01 challenge needs.
 *
 * @param name  where it goes, after following CNAMEs from {@code _acme-challenge.NAME}; lower-case, no trailing dot
 * @param zone  the zone holding {@code name} (found by SOA, or {@code dns.zone}); no trailing dot
 * @param value the TXT value: the challenge's digest (43 characters of base64url)
 */
record ChallengeRecord(String name, String zone, String value) {
    /** The name with its trailing dot, as DNS tools and hook scripts write it. */
    String fqdn() {
        return name + ".";
    }

    /** For messages: {@code _acme-challenge.example.com TXT "abcdefgh…"}. */
    String describe() {
        return name + " TXT \"" + (value.length() > 8 ? value.substring(0, 8) + "…" : value) + "\"";
    }
}
