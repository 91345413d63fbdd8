package dev.usher.cert;

import dev.usher.config.AcmeSettings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ACME issuers a certificate manager uses: one per distinct ACME settings (the global ones, and those of each
 * site with its own {@code tls: {dns: ...}}). An issuer is kept from one config to the next while its settings stay
 * the same, so its account and ARI knowledge survive a reload. Touched under the manager's lock only.
 */
final class AcmeIssuers {
    private final AccountStore store;
    private final ChallengeAnswers answers;
    private Map<AcmeSettings, AcmeIssuer> inUse = Map.of();
    private final Map<AcmeSettings, AcmeIssuer> chosen = new HashMap<>();

    AcmeIssuers(AccountStore store, ChallengeAnswers answers) {
        this.store = store;
        this.answers = answers;
    }

    /** The issuer for {@code settings} in the config being applied: the one in use, or a new one. */
    AcmeIssuer choose(AcmeSettings settings) {
        return chosen.computeIfAbsent(settings, s -> {
            AcmeIssuer kept = inUse.get(s);
            return kept != null ? kept : new AcmeIssuer(s, store, answers);
        });
    }

    /** Ends an apply: the chosen issuers are the ones in use now; gives back those no longer used (to be closed). */
    List<AcmeIssuer> keepChosen() {
        List<AcmeIssuer> dropped = new ArrayList<>();
        for (AcmeIssuer issuer : inUse.values()) {
            if (!chosen.containsValue(issuer)) {
                dropped.add(issuer);
            }
        }
        inUse = Map.copyOf(chosen);
        chosen.clear();
        return dropped;
    }

    /** The issuers in use. */
    List<AcmeIssuer> inUse() {
        return List.copyOf(inUse.values());
    }
}
