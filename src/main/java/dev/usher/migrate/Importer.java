package dev.usher.migrate;

import dev.usher.cert.CertManager;
import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Pem;
import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.files.AtomicFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Turns a conversion into a written {@code usher.yaml} and certificates in the data directory, or, for a dry run,
 * into the text and the list only. The file is checked with the loader of {@code usher check} before anything is
 * written (with the certificate files in a scratch copy of the data directory, so that {@code tls: {cert, key}} can
 * be checked too); a site the loader refuses is written as a comment and listed, never left to break the file.
 * An existing output file is replaced only when asked, and kept beside it as a backup.
 */
public final class Importer {
    private static final DateTimeFormatter BACKUP_STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    /**
     * What the user asked for.
     *
     * @param output    the config file to write
     * @param dataDir   the data directory to write certificates into and to name in {@code data:}; null for the
     *                  loader's default (then no {@code data:} line is written)
     * @param acmeCa    the ACME directory to name in {@code acme: ca:} (and store ACME certificates under); null
     *                  for the source's, or Let's Encrypt
     * @param acmeTrust PEM roots for that CA's own HTTPS; null for none
     * @param dryRun    print only, write nothing
     * @param force     replace an existing output file (keeping a backup)
     * @param strict    write nothing when anything was not converted
     */
    public record Options(Path output, Path dataDir, String acmeCa, Path acmeTrust, boolean dryRun, boolean force,
                          boolean strict) {
    }

    /**
     * What an import did (or, for a dry run, would do).
     *
     * @param yaml     the file's text
     * @param sites    the sites written as sites (not as comments)
     * @param stored   names whose ACME certificate was stored in the data directory
     * @param copied   folders under {@code <data>/imported/} that certificate files were copied to
     * @param kept     names whose certificate already in the data directory was newer and was kept
     * @param toOrder  HTTPS names with no certificate to import, which Usher orders at first start
     * @param findings what was not converted, or differs
     * @param dataDir  the data directory the file uses
     * @param backup   where the replaced output file was kept, or null
     * @param written  false for a dry run, and when {@code --strict} stopped it
     */
    public record Outcome(String yaml, int sites, List<String> stored, List<String> copied, List<String> kept,
                          List<String> toOrder, List<Finding> findings, Path dataDir, Path backup, boolean written) {
        /** True when anything was not converted. */
        public boolean skippedAny() {
            return findings.stream().anyMatch(f -> f.kind() == Finding.Kind.NOT_CONVERTED);
        }
    }

    private Importer() {
    }

    /** Checks, and unless a dry run (or {@code --strict} with something not converted) writes, the import. */
    public static Outcome run(Conversion conversion, Options options) throws ImportException {
        Path output = options.output().toAbsolutePath().normalize();
        if (!options.dryRun() && Files.exists(output) && !options.force()) {
            throw new ImportException(output + " exists already; give --force to replace it (it is kept as a "
                    + "backup), or -o another file");
        }
        Globals globals = globals(conversion.globals(), options);
        Path dataLine = options.dataDir() == null ? null : options.dataDir().toAbsolutePath().normalize();
        UsherConfig top = loadTop(globals, dataLine, output);
        String issuerId = CertManager.acmeIssuerId(top.acme().directory());
        CertificatePlan plan = new CertificatePlan(conversion.sites(), conversion.certificates(), Instant.now());
        List<Finding> findings = new ArrayList<>(conversion.findings());
        findings.addAll(plan.findings());
        List<StreamEntry> streams = new ArrayList<>(conversion.streams());
        checkSites(conversion, globals, plan, streams, output, findings);
        List<SiteEntry> sites = plan.sitesFor(top.dataDir());
        String yaml = UsherYaml.render(conversion, globals, sites, streams, dataLine, findings);
        int active = (int) sites.stream().filter(s -> s.state() == SiteEntry.State.ACTIVE).count();
        List<String> storedNames = plan.stored().stream().map(CertificatePlan.Stored::name).toList();
        List<String> copiedNames = plan.copied().stream().map(CertificatePlan.Copied::folder).toList();
        boolean skipped = findings.stream().anyMatch(f -> f.kind() == Finding.Kind.NOT_CONVERTED);
        if (options.dryRun() || options.strict() && skipped) {
            return new Outcome(yaml, active, storedNames, copiedNames, List.of(), plan.toOrder(), findings,
                    top.dataDir(), null, false);
        }
        List<String> kept = writeCertificates(plan, top.dataDir(), issuerId);
        check(yaml, output);
        Path backup = writeConfig(output, yaml);
        return new Outcome(yaml, active, storedNames.stream().filter(n -> !kept.contains(n)).toList(), copiedNames,
                kept, plan.toOrder(), findings, top.dataDir(), backup, true);
    }

    private static Globals globals(Globals fromSource, Options options) {
        Globals g = fromSource;
        if (options.acmeCa() != null || options.acmeTrust() != null) {
            g = g.withAcme(options.acmeCa() != null ? options.acmeCa() : g.acmeCa(),
                    options.acmeTrust() != null ? options.acmeTrust().toAbsolutePath().toString() : g.acmeTrust());
        }
        return g;
    }

    /** The top-level settings as the loader reads them: where the data directory is, which ACME CA. */
    private static UsherConfig loadTop(Globals globals, Path dataLine, Path output) throws ImportException {
        Conversion empty = new Conversion("", globals, List.of(), List.of(), List.of(), List.of());
        String text = UsherYaml.render(empty, globals, List.of(), List.of(), dataLine, List.of());
        try {
            return ConfigLoader.parse(text.getBytes(StandardCharsets.UTF_8), output);
        } catch (ConfigException e) {
            throw new ImportException("the top-level settings would not load", e.errors().stream()
                    .map(ConfigError::format).toList());
        }
    }

    /**
     * The sites and streams, checked by the loader in a scratch data directory holding the copied certificate files:
     * a site it refuses is turned into a comment and listed, a stream it refuses is left out of {@code streams} and
     * listed, until the whole file loads.
     */
    private static void checkSites(Conversion conversion, Globals globals, CertificatePlan plan,
                                   List<StreamEntry> streams, Path output, List<Finding> findings)
            throws ImportException {
        Path scratch = null;
        try {
            scratch = Files.createTempDirectory("usher-import");
            writeCopies(plan, scratch);
            for (int round = 0; round <= conversion.sites().size() + streams.size(); round++) {
                List<SiteEntry> sites = plan.sitesFor(scratch);
                String yaml = UsherYaml.render(conversion, globals, sites, streams, scratch, List.of());
                List<ConfigError> errors;
                try {
                    ConfigLoader.parse(yaml.getBytes(StandardCharsets.UTF_8), output);
                    return;
                } catch (ConfigException e) {
                    errors = e.errors();
                }
                boolean changed = false;
                for (ConfigError error : errors) {
                    int stream = streamOf(error, streams);
                    if (stream >= 0) {
                        StreamEntry refused = streams.remove(stream);
                        findings.add(new Finding(Finding.Kind.NOT_CONVERTED, refused.origin(), "stream "
                                + refused.listen() + " → " + refused.to(), "usher check refuses it: "
                                + error.message()));
                        changed = true;
                        continue;
                    }
                    int index = siteOf(error, sites);
                    if (index < 0) {
                        throw new ImportException("the converted file would not load (a bug in usher import: please "
                                + "report it)", errors.stream().map(ConfigError::format).toList());
                    }
                    SiteEntry site = sites.get(index);
                    if (site.state() == SiteEntry.State.ACTIVE) {
                        plan.refused(site.name(), "usher check refuses it");
                        findings.add(new Finding(Finding.Kind.NOT_CONVERTED, site.origin(), "site " + site.name(),
                                "usher check refuses the converted site: " + error.message()));
                        changed = true;
                    }
                }
                if (!changed) {
                    throw new ImportException("the converted file would not load", errors.stream()
                            .map(ConfigError::format).toList());
                }
            }
            throw new ImportException("the converted file would not load");
        } catch (IOException e) {
            throw new ImportException("cannot check the converted file in a scratch folder: " + e.getMessage());
        } finally {
            deleteQuietly(scratch);
        }
    }

    /** The index of the site an error is about (by its YAML path {@code sites."name"...}), or -1. */
    private static int siteOf(ConfigError error, List<SiteEntry> sites) {
        for (int i = 0; i < sites.size(); i++) {
            SiteEntry s = sites.get(i);
            if (isUnder(error.path(), "sites", s.plainHttp() ? "http://" + s.name() : s.name())) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the stream an error is about (by its YAML path {@code streams.":2222"...}), or -1. */
    private static int streamOf(ConfigError error, List<StreamEntry> streams) {
        for (int i = 0; i < streams.size(); i++) {
            if (isUnder(error.path(), "streams", streams.get(i).listen())) {
                return i;
            }
        }
        return -1;
    }

    /** Whether a YAML path names {@code section.key} or something inside it, the key bare or quoted. */
    private static boolean isUnder(String path, String section, String key) {
        String bare = section + "." + key;
        String quoted = section + ".\"" + key + "\"";
        return path.equals(bare) || path.startsWith(bare + ".") || path.equals(quoted) || path.startsWith(quoted + ".")
                || path.startsWith(quoted + "[");
    }

    /** Stores the ACME certificates and copies the files; returns the names whose stored copy was kept. */
    private static List<String> writeCertificates(CertificatePlan plan, Path dataDir, String issuerId)
            throws ImportException {
        CertStore store = new CertStore(dataDir);
        List<String> kept = new ArrayList<>();
        try {
            for (CertificatePlan.Stored s : plan.stored()) {
                Optional<CertifiedKey> existing = store.load(issuerId, s.name());
                if (existing.isPresent() && !existing.get().notAfter().isBefore(s.key().notAfter())) {
                    kept.add(s.name());
                    continue;
                }
                store.save(issuerId, s.name(), s.key());
            }
            writeCopies(plan, dataDir);
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            throw new ImportException("cannot write the certificates into " + dataDir + ": " + e.getMessage());
        }
        return kept;
    }

    private static void writeCopies(CertificatePlan plan, Path dataDir) throws IOException {
        for (CertificatePlan.Copied c : plan.copied()) {
            FoundCertificate.Files files = c.files(dataDir);
            AtomicFiles.write(files.key(), Pem.privateKey(c.key().key()).getBytes(StandardCharsets.US_ASCII), true);
            AtomicFiles.write(files.cert(), Pem.certificates(c.key().chain()).getBytes(StandardCharsets.US_ASCII),
                    false);
        }
    }

    private static void check(String yaml, Path output) throws ImportException {
        try {
            ConfigLoader.parse(yaml.getBytes(StandardCharsets.UTF_8), output);
        } catch (ConfigException e) {
            throw new ImportException("the converted file would not load", e.errors().stream()
                    .map(ConfigError::format).toList());
        }
    }

    /** Writes the file atomically; an existing one is first copied to {@code FILE.bak-STAMP}, which is returned. */
    private static Path writeConfig(Path output, String yaml) throws ImportException {
        Path backup = null;
        try {
            if (Files.exists(output)) {
                backup = output.resolveSibling(output.getFileName() + ".bak-"
                        + LocalDateTime.now().format(BACKUP_STAMP));
                AtomicFiles.write(backup, Files.readAllBytes(output), false);
            }
            AtomicFiles.write(output, yaml.getBytes(StandardCharsets.UTF_8), false);
            return backup;
        } catch (IOException e) {
            throw new ImportException("cannot write " + output + ": " + e.getMessage());
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    // a scratch folder under the temp directory; nothing depends on it going
                }
            });
        } catch (IOException e) {
            // as above
        }
    }
}
