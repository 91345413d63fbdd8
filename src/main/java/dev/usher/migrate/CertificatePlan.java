package dev.usher.migrate;

import dev.usher.cert.CertifiedKey;
import dev.usher.config.LocalNames;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Decides, site by site, where its certificate comes from after the import:
 * <ul>
 *   <li>an ACME certificate for a single name goes into the data directory under the ACME issuer's id, where
 *       {@code usher run} serves it at once and renews it from Usher's ACME CA when due (no order before then);</li>
 *   <li>a certificate the user keeps in files stays there ({@code tls: {cert, key}} points at them);</li>
 *   <li>one uploaded into the source tool, or an ACME wildcard (Usher cannot renew one without DNS-01), is copied
 *       into {@code <data>/imported/<name>/} and used as files;</li>
 *   <li>no usable certificate: Usher orders one at first start, except for a public wildcard, which cannot be had
 *       that way and is written as a comment.</li>
 * </ul>
 */
final class CertificatePlan {
    /** The folder under the data directory that copied certificate files go to. */
    static final String IMPORTED = "imported";

    /** A certificate to store under the ACME issuer for {@code name}. */
    record Stored(String name, CertifiedKey key) {
    }

    /** A certificate to copy as files into {@code <data>/imported/<folder>/}. */
    record Copied(String folder, CertifiedKey key) {
        FoundCertificate.Files files(Path dataDir) {
            Path dir = dataDir.resolve(IMPORTED).resolve(folder);
            return new FoundCertificate.Files(dir.resolve("cert.pem"), dir.resolve("key.pem"));
        }
    }

    /** A site, and the copied certificate it is to use (null when none). */
    private record Planned(SiteEntry site, Copied copy) {
    }

    private final List<Planned> sites = new ArrayList<>();
    private final List<Stored> stored = new ArrayList<>();
    private final List<Copied> copied = new ArrayList<>();
    private final List<String> toOrder = new ArrayList<>();
    private final List<Finding> findings = new ArrayList<>();

    CertificatePlan(List<SiteEntry> input, List<FoundCertificate> found, Instant now) {
        CheckedCertificates checked = new CheckedCertificates(found, now);
        findings.addAll(checked.findings());
        Map<CheckedCertificates.Checked, Copied> copies = new IdentityHashMap<>();
        for (SiteEntry site : input) {
            if (site.state() != SiteEntry.State.ACTIVE || !site.https() || site.tls() != SiteEntry.Tls.AUTO) {
                sites.add(new Planned(site, null));
                continue;
            }
            for (CheckedCertificates.Checked wrong : checked.listedButNotCovering(site.name())) {
                findings.add(new Finding(Finding.Kind.NOT_CONVERTED, wrong.found().origin(), "certificate for "
                        + site.name(), "not used: it does not name " + site.name() + " (browsers would refuse it)"));
            }
            CheckedCertificates.Checked cert = checked.bestFor(site.name());
            boolean wildcard = site.name().startsWith("*.");
            boolean local = LocalNames.isLocal(site.name());
            if (cert == null) {
                if (wildcard && !local) {
                    String why = "no usable certificate for the wildcard, and Usher cannot get one without the DNS-01 "
                            + "challenge; give it tls: {cert: FILE, key: FILE} or a site per name";
                    sites.add(new Planned(site.commentedOut("no certificate"), null));
                    findings.add(new Finding(Finding.Kind.NOT_CONVERTED, site.origin(), "site " + site.name(), why));
                } else {
                    if (!local) {
                        toOrder.add(site.name());
                    }
                    sites.add(new Planned(site, null));
                }
                continue;
            }
            switch (cert.found().kind()) {
                case USER_FILES -> sites.add(new Planned(site.withCertFiles(cert.found().files()), null));
                case UPLOADED -> sites.add(new Planned(site, copy(copies, cert, site.name())));
                case ACME -> {
                    if (wildcard || local) {
                        sites.add(new Planned(site, copy(copies, cert, site.name())));
                        findings.add(new Finding(Finding.Kind.CHANGED, site.origin(), "certificate for "
                                + site.name(), "copied as files: Usher cannot renew "
                                + (wildcard ? "a wildcard without acme.dns (DNS-01)" : "an ACME certificate for a local name")
                                + "; replace the files before it expires on " + cert.key().notAfter()));
                    } else {
                        stored.add(new Stored(site.name(), cert.key()));
                        sites.add(new Planned(site, null));
                    }
                }
            }
        }
    }

    private Copied copy(Map<CheckedCertificates.Checked, Copied> copies, CheckedCertificates.Checked cert,
                        String name) {
        return copies.computeIfAbsent(cert, c -> {
            Copied made = new Copied(folderName(name), c.key());
            copied.add(made);
            return made;
        });
    }

    /** A folder name for {@code name}: lower-case, {@code *.} as {@code wildcard_.}, nothing that leaves the folder. */
    static String folderName(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace("*", "wildcard_");
        StringBuilder b = new StringBuilder();
        for (char c : n.toCharArray()) {
            b.append(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' ? c : '_');
        }
        String s = b.toString().replaceAll("^\\.+", "_");
        return s.isEmpty() ? "_" : s;
    }

    /** The sites, with copied certificate files placed under {@code dataDir}. */
    List<SiteEntry> sitesFor(Path dataDir) {
        return sites.stream().map(p -> p.copy() == null ? p.site() : p.site().withCertFiles(p.copy().files(dataDir)))
                .toList();
    }

    /**
     * Writes the site {@code name} as a comment ({@code usher check} refused it), and drops what was planned for its
     * certificate.
     */
    void refused(String name, String reason) {
        sites.replaceAll(p -> p.site().name().equals(name) && p.site().state() == SiteEntry.State.ACTIVE
                ? new Planned(p.site().commentedOut(reason), null) : p);
        stored.removeIf(s -> s.name().equals(name));
        toOrder.remove(name);
    }

    List<Stored> stored() {
        return List.copyOf(stored);
    }

    List<Copied> copied() {
        return List.copyOf(copied);
    }

    /** HTTPS names with no certificate to import: Usher orders these at first start. */
    List<String> toOrder() {
        return List.copyOf(toOrder);
    }

    List<Finding> findings() {
        return List.copyOf(findings);
    }
}
