package dev.usher.cli;

import dev.usher.nativeimage.NativeDefaults;
import dev.usher.nativeimage.SelfTest;
import dev.usher.net.Transport;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The {@code usher} command line: reads the command word and hands the rest to that command's class. Every command
 * returns the process exit code; {@code run} and {@code whoami} block while they serve.
 */
public final class Cli {
    /** The file the config-reading commands use when {@code --config} is not given. */
    static final Path DEFAULT_CONFIG = Path.of("usher.yaml");

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    public Cli(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    /** True when {@code args} name a command that serves until the process is stopped ({@code run}, {@code whoami}). */
    public static boolean serves(String[] args) {
        return args.length > 0 && (args[0].equals("run") || args[0].equals("whoami"));
    }

    /** Runs one command; returns the process exit code (commands that serve block until the JVM stops). */
    public int execute(String[] args) {
        NativeDefaults.apply(); // the native executable's equivalent of the launcher's -D flags
        if (args.length == 0) {
            usage(out);
            return 0;
        }
        String command = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return switch (command) {
            case "run" -> new RunCommand(out, err).run(rest);
            case "check", "validate" -> new CheckCommand(out, err).run(rest);
            case "whoami" -> {
                LogFormat.install(false);
                yield WhoamiCommand.run(rest, out, err);
            }
            case "hash-password" -> PasswordHashCommand.run(rest, in, out, err);
            case "renew" -> new CertificateCommands(out, err).renew(rest);
            case "reload" -> new ReloadCommand(out, err).run(rest);
            case "trust" -> new CertificateCommands(out, err).trust(rest);
            case "import" -> new ImportCommand(out, err).run(rest);
            case "storage" -> new StorageCommand(out, err).run(rest);
            case "train" -> Training.command(rest, err); // used by the launcher to record an AOT cache; not in --help
            case "selftest" -> SelfTest.run(out); // checks the native executable's libraries; not in --help
            case "version", "--version", "-v" -> {
                out.println("usher " + version() + " (Java " + Runtime.version().feature() + ", "
                        + Transport.best().name() + ")");
                yield 0;
            }
            case "help", "--help", "-h" -> {
                usage(out);
                yield 0;
            }
            default -> {
                err.println("usher: unknown command \"" + command + "\"");
                usage(err);
                yield 2;
            }
        };
    }

    /** This build's version, as {@code usher version} prints it. */
    static String version() {
        return dev.usher.UsherVersion.get();
    }

    private static void usage(PrintStream to) {
        to.println("""
                usher — a reverse proxy for many apps on one small server

                Usage:
                  usher run [--config FILE] [--debug]   serve (FILE defaults to ./usher.yaml; without one, a demo)
                  usher check [--config FILE]           validate a config file; exit 1 and list every error if bad
                  usher reload [--config FILE]          make the running Usher apply FILE now (it also does when
                                                        FILE is saved, and on SIGHUP); exit 1 with the errors
                  usher whoami [--listen ADDR] [--name NAME]
                                                        a tiny backend that answers with the request it saw
                  usher hash-password [--password-stdin]
                                                        a bcrypt hash for basic_auth or admin.password
                  usher renew NAME [--config FILE]      ask the running Usher to get a new certificate for NAME now
                  usher trust [--config FILE]           where the local CA's root is, and how to trust it
                  usher import npm|caddy|traefik|ssldocker SOURCE [-o FILE] [--data DIR] [--dry-run]
                                                        write usher.yaml and the certificates from another
                                                        proxy's set-up (usher import --help for the options)
                  usher storage copy --from data --to redis [--config FILE]
                                                        move this node's certificates into the fleet's
                                                        storage (or back: --from redis --to data)
                  usher version                         print the version
                  usher --help                          this text

                A config file, one line per site:
                  sites:
                    app1.example.com: app1:80
                    app2.example.com: 127.0.0.1:3000
                    http://plain.example.com: 127.0.0.1:8081""");
    }
}
