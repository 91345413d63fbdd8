package dev.usher.cert;

import dev.usher.config.DnsSettings;
import dev.usher.dns.DnsChallenges;
import dev.usher.dns.DnsException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The DNS-01 part of a {@link ChallengeRound}: the order's TXT records presented together and waited for on every
 * authoritative server, removed by {@link #close()}. Kept apart so that the classes of the {@code dns} package (and
 * dnsjava) load only when an order needs DNS-01.
 */
final class Dns01Step implements AutoCloseable {
    private final DnsChallenges.Round round;

    Dns01Step(DnsChallenges dns) {
        this.round = dns.round();
    }

    /** The keeper of {@code settings}' records (opened at an issuer's first DNS-01 order). */
    static DnsChallenges open(DnsSettings settings) throws IssueException {
        try {
            return DnsChallenges.open(settings);
        } catch (DnsException e) {
            throw new IssueException("dns-01: " + e.getMessage(), e);
        }
    }

    /**
     * Presents every value at once, then waits until all are on every authoritative server.
     *
     * @param digests the TXT value of each name being validated ({@code *.example.com} or {@code example.com})
     */
    void present(Map<String, String> digests) throws IssueException, InterruptedException {
        List<DnsChallenges.Wanted> wanted = new ArrayList<>();
        digests.forEach((name, digest) -> wanted.add(new DnsChallenges.Wanted(
                (name.startsWith("*.") ? name.substring(2) : name).toLowerCase(Locale.ROOT), digest)));
        try {
            round.present(wanted);
            round.awaitPropagation();
        } catch (DnsException e) {
            throw new IssueException(String.join(", ", digests.keySet()) + ": dns-01: " + e.getMessage(), e);
        }
    }

    /** Removes the records, whatever happened. */
    @Override
    public void close() {
        round.close();
    }
}
