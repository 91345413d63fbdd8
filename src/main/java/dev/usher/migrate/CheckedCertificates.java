package dev.usher.migrate;

import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Pem;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The certificates found, read and checked: a chain that does not parse, a key that is not the certificate's, or a
 * certificate that has expired is reported (never imported) and left out, so that Usher orders a new one instead.
 */
final class CheckedCertificates {
    /** A certificate that passed the checks. */
    record Checked(FoundCertificate found, CertifiedKey key) {
        /** True when the source keeps this certificate for {@code name} itself (not only by its names). */
        boolean listedFor(String name) {
            return found.names().stream().anyMatch(n -> n.toLowerCase(Locale.ROOT).equals(name));
        }
    }

    private final List<Checked> usable = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();

    CheckedCertificates(List<FoundCertificate> found, Instant now) {
        for (FoundCertificate f : found) {
            String what = "certificate" + (f.names().isEmpty() ? "" : " for " + String.join(", ", f.names()));
            CertifiedKey key;
            try {
                key = Pem.readCertifiedKey(f.certPem(), f.certSource(), f.keyPem(), f.keySource());
            } catch (IOException e) {
                findings.add(new Finding(Finding.Kind.NOT_CONVERTED, f.origin(), what,
                        "not imported: " + e.getMessage() + "; Usher gets a new one"));
                continue;
            }
            if (!key.notAfter().isAfter(now)) {
                findings.add(new Finding(Finding.Kind.NOT_CONVERTED, f.origin(), what,
                        "not imported: it expired on " + key.notAfter() + "; Usher gets a new one"));
                continue;
            }
            usable.add(new Checked(f, key));
        }
    }

    /** What was wrong with the certificates left out. */
    List<Finding> findings() {
        return List.copyOf(findings);
    }

    /**
     * The best certificate for {@code name}: among those that cover it, one the source keeps for this very name
     * first, then the one valid longest; null when none does.
     */
    Checked bestFor(String name) {
        Checked best = null;
        for (Checked c : usable) {
            if (!c.key().covers(name)) {
                continue;
            }
            if (best == null || c.listedFor(name) && !best.listedFor(name)
                    || c.listedFor(name) == best.listedFor(name) && c.key().notAfter().isAfter(best.key().notAfter())) {
                best = c;
            }
        }
        return best;
    }

    /** Certificates the source keeps for {@code name} that do not cover it (the source's set-up was wrong). */
    List<Checked> listedButNotCovering(String name) {
        return usable.stream().filter(c -> c.listedFor(name) && !c.key().covers(name)).toList();
    }
}
