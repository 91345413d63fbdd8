package dev.usher.cert;

import dev.usher.config.AcmeSettings;
import dev.usher.config.AcmeSettings.ChallengeType;
import dev.usher.dns.DnsChallenges;
import org.shredzone.acme4j.Authorization;
import org.shredzone.acme4j.Status;
import org.shredzone.acme4j.challenge.Challenge;
import org.shredzone.acme4j.challenge.Dns01Challenge;
import org.shredzone.acme4j.exception.AcmeException;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Proves control of every pending name of one order: picks each authorization's challenge, publishes all answers
 * (HTTP-01 and TLS-ALPN-01 in memory, DNS-01 records through the provider, all at once), waits until the DNS
 * records are on every authoritative server, tells the CA, waits for each verdict, and withdraws every answer
 * whatever happened. A wildcard's authorization offers only DNS-01; the other names of a wildcard order (its base
 * name) use DNS-01 as well, since their record lives at the same name.
 */
final class ChallengeRound {
    private static final System.Logger LOG = System.getLogger(ChallengeRound.class.getName());

    private final AcmeSettings settings;
    private final ChallengeAnswers answers;
    private final AcmeChallenge.KeySource keys;
    /** Null when DNS-01 is not configured. */
    private final DnsChallenges dns;

    ChallengeRound(AcmeSettings settings, ChallengeAnswers answers, AcmeChallenge.KeySource keys,
                   DnsChallenges dns) {
        this.settings = settings;
        this.answers = answers;
        this.keys = keys;
        this.dns = dns;
    }

    /** One authorization to prove, with the challenge chosen for it. */
    private record Pending(String name, Authorization authorization, Challenge challenge) {
    }

    void prove(List<Authorization> authorizations) throws IssueException, AcmeException, InterruptedException {
        boolean wildcardOrder = authorizations.stream().anyMatch(Authorization::isWildcard);
        List<Pending> pending = new ArrayList<>();
        for (Authorization authorization : authorizations) {
            String name = (authorization.isWildcard() ? "*." : "") + authorization.getIdentifier().getValue();
            if (authorization.getStatus() == Status.VALID) {
                LOG.log(Level.INFO, "{0}: already authorized", name);
                continue;
            }
            if (authorization.getStatus() != Status.PENDING) {
                throw new IssueException(name + ": the CA's authorization is " + status(authorization.getStatus()),
                        null);
            }
            pending.add(new Pending(name, authorization, choose(authorization, wildcardOrder)));
        }
        List<AcmeChallenge> published = new ArrayList<>();
        Dns01Step records = null;
        try {
            Map<String, String> digests = new LinkedHashMap<>();
            for (Pending p : pending) {
                if (p.challenge() instanceof Dns01Challenge dns01) {
                    digests.put(p.name(), dns01.getDigest());
                } else {
                    published.add(AcmeChallenge.publish(p.challenge(), p.authorization().getIdentifier(), answers,
                            keys));
                }
            }
            if (!digests.isEmpty()) {
                records = new Dns01Step(dns);
                records.present(digests);
            }
            for (Pending p : pending) {
                p.challenge().trigger();
            }
            for (Pending p : pending) {
                await(p);
            }
        } finally {
            published.forEach(AcmeChallenge::withdraw);
            if (records != null) {
                records.close();
            }
        }
    }

    private void await(Pending p) throws IssueException, AcmeException, InterruptedException {
        Challenge challenge = p.challenge();
        try {
            Status status = AcmePolling.await(challenge, Set.of(Status.VALID, Status.INVALID),
                    AcmeIssuer.CHALLENGE_TIMEOUT);
            if (status != Status.VALID) {
                String what = p.name() + ": " + challenge.getType() + " challenge " + status(status);
                throw challenge.getError().map(e -> new IssueException(what + ": " + AcmeFailures.describe(e), null))
                        .orElseGet(() -> new IssueException(what + " (the CA gave no reason)", null));
            }
            LOG.log(Level.INFO, "{0}: {1} challenge valid", p.name(), challenge.getType());
        } catch (AcmeException e) {
            throw AcmeFailures.of(p.name() + ": " + challenge.getType() + " challenge", settings.directory(), e);
        }
    }

    /**
     * The first challenge type of {@code acme.challenges} that the CA offers; in a wildcard order, DNS-01 for every
     * name (the base name's record sits beside the wildcard's, and the base name may not be reachable over HTTP).
     */
    private Challenge choose(Authorization authorization, boolean wildcardOrder) throws IssueException {
        List<ChallengeType> order = settings.challenges();
        if (wildcardOrder && order.contains(ChallengeType.DNS_01)) {
            order = List.of(ChallengeType.DNS_01);
        }
        for (ChallengeType type : order) {
            Optional<Challenge> offered = authorization.findChallenge(type.id());
            if (offered.isPresent()) {
                return offered.get();
            }
        }
        List<String> offered = authorization.getChallenges().stream().map(Challenge::getType).toList();
        List<String> usable = order.stream().map(ChallengeType::id).toList();
        String name = (authorization.isWildcard() ? "*." : "") + authorization.getIdentifier().getValue();
        throw new IssueException(name + ": the CA offers " + offered + " challenges, but Usher is set to answer only "
                + usable + (offered.contains("dns-01") && dns == null ? " (DNS-01 needs acme.dns)" : ""), null);
    }

    private static String status(Status status) {
        return status.name().toLowerCase(Locale.ROOT);
    }
}
