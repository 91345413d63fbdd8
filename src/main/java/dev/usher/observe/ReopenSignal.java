package dev.usher.observe;

import sun.misc.Signal;

import java.lang.System.Logger.Level;

/**
 * SIGUSR1 → reopen the access log ({@link AccessLog#reopen()}), the usual logrotate signal ({@code postrotate: kill -USR1 $(pidof usher)}).
 * {@code sun.misc.Signal} (module {@code jdk.unsupported}) is the only way the JDK offers; it is kept to this class.
 */
public final class ReopenSignal {
    private static final System.Logger LOG = System.getLogger(ReopenSignal.class.getName());

    private ReopenSignal() {
    }

    /** Runs {@code reopen} on each SIGUSR1 from now on; false (and a warning) when this JVM does not allow it. */
    public static boolean install(Runnable reopen) {
        try {
            Signal.handle(new Signal("USR1"), s -> reopen.run());
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.log(Level.WARNING, "SIGUSR1 cannot be handled here, so the access log is not reopened on it: {0}",
                    e.toString());
            return false;
        }
    }
}
