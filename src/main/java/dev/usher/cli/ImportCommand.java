package dev.usher.cli;

import dev.usher.migrate.Conversion;
import dev.usher.migrate.Finding;
import dev.usher.migrate.Format;
import dev.usher.migrate.ImportException;
import dev.usher.migrate.Importer;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code usher import FORMAT SOURCE [options]}: writes a {@code usher.yaml} and the data directory's certificates
 * from an Nginx Proxy Manager, Caddy, Traefik or SSLDocker set-up, and lists what it did not convert. Exit 0 when
 * written (or printed, for {@code --dry-run}); 1 when nothing was written (an error, or {@code --strict} with
 * something not converted); 2 for bad arguments.
 */
final class ImportCommand {
    static final String USAGE = """
            usage: usher import FORMAT SOURCE [-o FILE] [--data DIR] [--certs PATH] [--ca URL] [--ca-trust FILE]
                                [--dry-run] [--force] [--strict]
              FORMAT and SOURCE:
                npm DATABASE        Nginx Proxy Manager's database.sqlite (or its data folder)
                caddy CADDYFILE     a Caddyfile
                traefik FILE        Traefik's dynamic configuration (YAML or TOML), or a compose file's labels
                ssldocker CONF      SSLDocker's JSON config
              -o FILE          the config to write (default ./usher.yaml); never replaced without --force
              --data DIR       Usher's data directory, where certificates go (written as data: in the file)
              --certs PATH     where the source keeps its certificates, if not where it does by default
                               (NPM's letsencrypt folder, Caddy's data folder, Traefik's acme.json, SSLDocker's Certs)
              --ca URL         the ACME CA Usher renews with (default: the source's, else Let's Encrypt)
              --ca-trust FILE  PEM roots for that CA's own HTTPS (a private CA)
              --dry-run        print the file and what is not converted; write nothing
              --force          replace an existing FILE (the old one is kept as FILE.bak-TIME)
              --strict         write nothing, and exit 1, if anything could not be converted""";

    private final PrintStream out;
    private final PrintStream err;

    ImportCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] args) {
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            out.println(USAGE);
            return 0;
        }
        Arguments a = Arguments.parse(args, err);
        if (a == null) {
            err.println(USAGE);
            return 2;
        }
        Conversion conversion;
        Importer.Outcome outcome;
        try {
            conversion = a.format().read(a.source(), a.certs());
            outcome = Importer.run(conversion, a.options());
        } catch (ImportException e) {
            err.println("usher import: " + e.getMessage());
            for (String line : e.details()) {
                err.println("  " + line);
            }
            err.println("usher import: nothing written");
            return 1;
        }
        if (a.options().dryRun()) {
            out.print(outcome.yaml());
            summary(conversion, outcome, a, err);
            return 0;
        }
        summary(conversion, outcome, a, out);
        if (!outcome.written()) {
            err.println("usher import: --strict and something was not converted: nothing written");
            return 1;
        }
        return 0;
    }

    private static void summary(Conversion conversion, Importer.Outcome o, Arguments a, PrintStream to) {
        to.println("usher import " + a.format().word() + ": " + o.sites() + " site(s) from " + conversion.source());
        if (!o.stored().isEmpty()) {
            to.println("  " + o.stored().size() + " certificate(s) stored in " + o.dataDir()
                    + " (served at once, renewed by Usher when due): " + String.join(", ", o.stored()));
        }
        if (!o.kept().isEmpty()) {
            to.println("  " + o.kept().size() + " certificate(s) already in " + o.dataDir() + " and newer, kept: "
                    + String.join(", ", o.kept()));
        }
        if (!o.copied().isEmpty()) {
            to.println("  " + o.copied().size() + " certificate(s) copied as files into " + o.dataDir()
                    .resolve("imported") + ": " + String.join(", ", o.copied()));
        }
        if (!o.toOrder().isEmpty()) {
            to.println("  " + o.toOrder().size() + " name(s) with no certificate to import, ordered at first start: "
                    + String.join(", ", o.toOrder()));
        }
        list("Not converted", o.findings(), Finding.Kind.NOT_CONVERTED, to);
        list("Converted with a difference", o.findings(), Finding.Kind.CHANGED, to);
        if (o.written()) {
            to.println("  wrote " + a.options().output() + (o.backup() != null ? " (the old one is kept as "
                    + o.backup() + ")" : "") + "; check it with: usher check --config " + a.options().output());
        } else if (a.options().dryRun()) {
            to.println("  --dry-run: nothing written");
        }
    }

    private static void list(String title, List<Finding> findings, Finding.Kind kind, PrintStream to) {
        List<Finding> these = findings.stream().filter(f -> f.kind() == kind).toList();
        if (these.isEmpty()) {
            return;
        }
        to.println("  " + title + " (" + these.size() + "):");
        for (Finding f : these) {
            to.println("    " + f.line());
        }
    }

    /** The command line, read. */
    private record Arguments(Format format, Path source, Path certs, Importer.Options options) {
        static Arguments parse(String[] args, PrintStream err) {
            Path output = Cli.DEFAULT_CONFIG;
            Path data = null;
            Path certs = null;
            String ca = null;
            Path trust = null;
            boolean dryRun = false;
            boolean force = false;
            boolean strict = false;
            Format format = null;
            Path source = null;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String value = i + 1 < args.length ? args[i + 1] : null;
                switch (arg) {
                    case "-o", "--output", "--data", "--certs", "--ca", "--ca-trust" -> {
                        if (value == null) {
                            err.println("usher import: " + arg + " needs a value");
                            return null;
                        }
                        i++;
                        switch (arg) {
                            case "--data" -> data = Path.of(value);
                            case "--certs" -> certs = Path.of(value);
                            case "--ca" -> ca = value;
                            case "--ca-trust" -> trust = Path.of(value);
                            default -> output = Path.of(value);
                        }
                    }
                    case "--dry-run", "-n" -> dryRun = true;
                    case "--force", "-f" -> force = true;
                    case "--strict" -> strict = true;
                    default -> {
                        if (arg.startsWith("-")) {
                            err.println("usher import: unknown option \"" + arg + "\"");
                            return null;
                        }
                        if (format == null) {
                            format = Format.of(arg);
                            if (format == null) {
                                err.println("usher import: unknown format \"" + arg + "\"; use npm, caddy, traefik "
                                        + "or ssldocker");
                                return null;
                            }
                        } else if (source == null) {
                            source = Path.of(arg);
                        } else {
                            err.println("usher import: one SOURCE only (\"" + arg + "\" is one too many)");
                            return null;
                        }
                    }
                }
            }
            if (format == null || source == null) {
                err.println("usher import: needs a FORMAT and a SOURCE");
                return null;
            }
            return new Arguments(format, source, certs,
                    new Importer.Options(output, data, ca, trust, dryRun, force, strict));
        }
    }
}
