package dev.usher.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIGTERM and SIGINT for {@code usher run}. The first one starts a graceful stop on a thread of its own, and the
 * process exits 0 once it is done (1 if the stop failed). A second one, while the stop is under way, exits at once
 * with 128 + the signal's number (143 for SIGTERM, 130 for SIGINT, as a shell reports a process killed by it),
 * cutting whatever is in flight and running no shutdown hook.
 *
 * <p>A JVM shutdown hook cannot do this: it also runs on SIGTERM, but the JDK ignores further signals while hooks
 * run, so a second Ctrl-C would do nothing. {@code sun.misc.Signal} (module {@code jdk.unsupported}) replaces the
 * JDK's handlers for these two signals instead; {@link #install} says when the JVM does not allow it (e.g. under
 * {@code -Xrs}), and the caller then falls back to a shutdown hook.
 */
final class StopSignals implements SignalHandler {
    private static final System.Logger LOG = System.getLogger(StopSignals.class.getName());
    private static final String[] SIGNALS = {"TERM", "INT"};

    private final Runnable stop;
    private final AtomicBoolean stopping = new AtomicBoolean();

    private StopSignals(Runnable stop) {
        this.stop = stop;
    }

    /**
     * Handles SIGTERM and SIGINT with a graceful {@code stop}, then exit; returns false (and changes nothing) when
     * the JVM does not let either be handled.
     */
    static boolean install(Runnable stop) {
        StopSignals handler = new StopSignals(stop);
        try {
            for (String name : SIGNALS) {
                Signal.handle(new Signal(name), handler);
            }
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.log(Level.DEBUG, "cannot handle SIGTERM/SIGINT ({0}); using a shutdown hook", e.getMessage());
            return false;
        }
    }

    @Override
    public void handle(Signal signal) {
        if (stopping.compareAndSet(false, true)) {
            Thread.ofPlatform().name("usher-stop").start(() -> {
                int code = 0;
                try {
                    stop.run();
                } catch (RuntimeException | Error e) {
                    LOG.log(Level.ERROR, "stopping failed", e);
                    code = 1;
                }
                System.exit(code);
            });
        } else {
            int code = 128 + signal.getNumber();
            LOG.log(Level.WARNING, "second SIG{0}: exiting now (code {1}), cutting what is in flight",
                    signal.getName(), code);
            Runtime.getRuntime().halt(code);
        }
    }
}
