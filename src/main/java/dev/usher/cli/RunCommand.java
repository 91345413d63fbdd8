package dev.usher.cli;

import dev.usher.Usher;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.nativeimage.StartupCheck;
import dev.usher.observe.ReopenSignal;
import dev.usher.reload.ConfigWatcher;
import dev.usher.reload.HangupSignal;
import dev.usher.reload.Reloader;
import dev.usher.server.IdleHeapTrim;
import dev.usher.server.ListenException;
import dev.usher.whoami.Whoami;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * {@code usher run [--config FILE] [--debug]}: serves FILE (default {@code ./usher.yaml}; without one, a built-in
 * demo with its own whoami backend) until SIGTERM or SIGINT, reloading when the file changes, on SIGHUP and on
 * {@code usher reload}.
 */
final class RunCommand {
    /** How often the idle heap trim looks at the heap (see {@link IdleHeapTrim}). */
    private static final Duration HEAP_TRIM_INTERVAL = Duration.ofSeconds(5);

    private final PrintStream out;
    private final PrintStream err;

    RunCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(String[] args) {
        CommandArguments options = CommandArguments.parse("run", args, true, 0, err);
        if (options == null) {
            return 2;
        }
        LogFormat.install(options.debug());
        Path file = options.config() != null ? options.config()
                : Files.exists(Cli.DEFAULT_CONFIG) ? Cli.DEFAULT_CONFIG : null;
        Whoami demoBackend = null;
        UsherConfig config;
        if (file != null) {
            config = CommandConfig.load(file, "usher", err,
                    count -> "usher: not started: " + count + " error(s) in the config");
            if (config == null) {
                return 1;
            }
        } else {
            demoBackend = Whoami.start("127.0.0.1", 0, "usher-demo");
            try {
                config = ConfigLoader.parse(demoConfig(demoBackend.port()), "<built-in demo>");
            } catch (ConfigException e) {
                demoBackend.close();
                throw new IllegalStateException("the built-in demo config is invalid", e);
            }
        }
        // the native executable refuses to start without a native library it was built with (on the JVM: a no-op)
        if (!StartupCheck.passes(StartupCheck.needed(config.listen().http3On()), err)) {
            closeQuietly(demoBackend);
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
        IdleHeapTrim.start(usher.eventLoops().next(), HEAP_TRIM_INTERVAL);
        if (usher.observesRequests()) {
            ReopenSignal.install(usher::reopenAccessLog); // logrotate's postrotate: kill -USR1
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Whoami backend = demoBackend;
        Runnable stop = () -> {
            if (watcher != null) {
                watcher.close();
            }
            usher.shutdown(usher.config().timeouts().shutdown()); // as last reloaded
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
            err.println("usher: not watching " + file + " for changes (" + CommandConfig.describe(e) + "); after an "
                    + "edit, run usher reload or send SIGHUP");
            return null;
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

    /** The built-in demo config, its whoami backend on {@code whoamiPort}. */
    static String demoConfig(int whoamiPort) {
        try (InputStream in = RunCommand.class.getResourceAsStream("demo.yaml")) {
            if (in == null) {
                throw new IllegalStateException("demo.yaml is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("{WHOAMI}", "127.0.0.1:" + whoamiPort);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void closeQuietly(Whoami whoami) {
        if (whoami != null) {
            whoami.close();
        }
    }
}
