package dev.usher;

import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.reload.ConfigWatcher;
import dev.usher.reload.HangupSignal;
import dev.usher.reload.Reloader;
import dev.usher.observe.ReopenSignal;
import dev.usher.rules.PasswordHashCommand;
import dev.usher.server.IdleHeapTrim;
import dev.usher.server.ListenException;
import dev.usher.net.Transport;
import dev.usher.whoami.Whoami;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/** The {@code usher} command line: {@code run}, {@code check}, {@code whoami}, {@code version}, {@code --help}. */
public final class Main {
    /** The file {@code run} and {@code check} use when {@code --config} is not given and it exists. */
    static final Path DEFAULT_CONFIG = Path.of("usher.yaml");
    /** How often the idle heap trim looks at the heap (see {@link IdleHeapTrim}). */
    private static final Duration HEAP_TRIM_INTERVAL = Duration.ofSeconds(5);

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    Main(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int code = new Main(System.in, System.out, System.err).execute(args);
        if (code != 0 || args.length == 0 || !"run".equals(args[0]) && !"whoami".equals(args[0])) {
            System.exit(code);
        }
    }

    /** Runs one command; returns the process exit code (commands that serve block until the JVM stops). */
    int execute(String[] args) {
        if (args.length == 0) {
            usage(out);
            return 0;
        }
        String command = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        return switch (command) {
            case "run" -> run(rest);
            case "check", "validate" -> check(rest);
            case "whoami" -> {
                LogFormat.install(false);
                yield Whoami.runCli(rest);
            }
            case "hash-password" -> PasswordHashCommand.run(rest, in, out, err);
            case "renew" -> new CertificateCommands(out, err).renew(rest);
            case "reload" -> new ReloadCommand(out, err).run(rest);
            case "trust" -> new CertificateCommands(out, err).trust(rest);
            case "train" -> train(rest); // used by the launcher to record an AOT cache; not in --help
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

    private int run(String[] args) {
        CommandArguments options = CommandArguments.parse("run", args, true, 0, err);
        if (options == null) {
            return 2;
        }
        LogFormat.install(options.debug());
        Path file = options.config() != null ? options.config() : Files.exists(DEFAULT_CONFIG) ? DEFAULT_CONFIG : null;
        Whoami demoBackend = null;
        UsherConfig config;
        try {
            if (file != null) {
                config = ConfigLoader.load(file);
            } else {
                demoBackend = Whoami.start("127.0.0.1", 0, "usher-demo");
                config = ConfigLoader.parse(demoConfig(demoBackend.port()), "<built-in demo>");
            }
        } catch (ConfigException e) {
            printErrors(e);
            err.println("usher: not started: " + e.errors().size() + " error(s) in the config");
            closeQuietly(demoBackend);
            return 1;
        } catch (IOException e) {
            err.println("usher: cannot read " + file + ": " + describe(e));
            return 1;
        }
        Usher usher;
        try {
            usher = Usher.start(config);
        } catch (ListenException e) {
            err.println("usher: " + e.getMessage());
            closeQuietly(demoBackend);
            return 1;
        }
        if (demoBackend != null) {
            printDemoHelp(usher.httpAddress().getPort());
        }
        ConfigWatcher watcher = file == null ? null : watchForReloads(usher, file);
        // The process is ours alone here (not in tests or `usher train`): give back what a burst of traffic grew.
        IdleHeapTrim.start(usher.loops.next(), HEAP_TRIM_INTERVAL);
        if (usher.accessLogs != null) {
            ReopenSignal.install(usher::reopenAccessLog); // logrotate's postrotate: kill -USR1
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Whoami backend = demoBackend;
        Runnable stop = () -> {
            if (watcher != null) {
                watcher.close();
            }
            usher.shutdown(usher.routes().get().config().timeouts().shutdown()); // as last reloaded
            closeQuietly(backend);
            stopped.countDown();
        };
        // SIGTERM/SIGINT: a graceful stop, then exit 0 (StopSignals exits); a second signal exits at once.
        if (!StopSignals.install(stop)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop, "usher-shutdown"));
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** Reloads on a change of {@code file}, on SIGHUP and on {@code usher reload}; returns the file watcher. */
    private ConfigWatcher watchForReloads(Usher usher, Path file) {
        Reloader reloader = usher.reloadFrom(file);
        HangupSignal.install(() -> reloader.reload("SIGHUP"));
        try {
            return ConfigWatcher.start(file, () -> reloader.reloadIfChanged("file change"));
        } catch (IOException e) {
            err.println("usher: not watching " + file + " for changes (" + describe(e) + "); after an edit, run "
                    + "usher reload or send SIGHUP");
            return null;
        }
    }

    /** {@code usher train [plain]}: {@code plain} leaves HTTPS out (see {@link Training}). */
    private int train(String[] args) {
        boolean https = !(args.length == 1 && args[0].equals("plain"));
        if (args.length > 1 || (args.length == 1 && https)) {
            err.println("usher: usage: usher train [plain]");
            return 2;
        }
        try {
            return Training.run(https);
        } catch (Exception e) {
            err.println("usher: training run failed: " + e);
            return 1;
        }
    }

    private int check(String[] args) {
        CommandArguments options = CommandArguments.parse("check", args, false, 0, err);
        if (options == null) {
            return 2;
        }
        Path file = options.config() != null ? options.config() : DEFAULT_CONFIG;
        try {
            UsherConfig config = ConfigLoader.load(file);
            out.println(file + ": OK, " + config.sites().size() + " site(s)");
            return 0;
        } catch (ConfigException e) {
            printErrors(e);
            err.println(file + ": " + e.errors().size() + " error(s)");
            return 1;
        } catch (IOException e) {
            err.println("usher: cannot read " + file + ": " + describe(e));
            return 1;
        }
    }

    private void printErrors(ConfigException e) {
        for (ConfigError error : e.errors()) {
            err.println(error.format());
        }
    }

    private void printDemoHelp(int port) {
        out.println();
        out.println("Usher is running its built-in demo (no usher.yaml here and no --config given).");
        out.println("A built-in whoami backend answers with the request it saw. Try:");
        out.println("  curl http://localhost:" + port + "/");
        out.println("  curl http://whoami.localhost:" + port + "/");
        out.println("  curl http://anything.demo.localhost:" + port + "/");
        out.println("  curl -H 'Host: unknown.example.com' http://127.0.0.1:" + port + "/    # 404: not an open proxy");
        out.println("Then write a usher.yaml (see README.md) and run: ./usher run --config usher.yaml");
        out.println();
    }

    static String demoConfig(int whoamiPort) {
        try (InputStream in = Main.class.getResourceAsStream("demo.yaml")) {
            if (in == null) {
                throw new IllegalStateException("demo.yaml is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("{WHOAMI}", "127.0.0.1:" + whoamiPort);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("/usher-version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String describe(IOException e) {
        return e instanceof NoSuchFileException ? "no such file" : e.getMessage();
    }

    private static void closeQuietly(Whoami whoami) {
        if (whoami != null) {
            whoami.close();
        }
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
                  usher version                         print the version
                  usher --help                          this text

                A config file, one line per site:
                  sites:
                    app1.example.com: app1:80
                    app2.example.com: 127.0.0.1:3000
                    http://plain.example.com: 127.0.0.1:8081""");
    }
}
