package dev.usher.reload;

import java.lang.System.Logger.Level;

/**
 * SIGHUP asks for a reload, as it does of nginx and most Unix daemons. Without a handler the JVM would treat SIGHUP
 * as a request to exit. Uses {@code sun.misc.Signal} (module {@code jdk.unsupported}), the only way the JDK offers;
 * kept in this one class so that nothing else depends on it.
 */
public final class HangupSignal {
    private static final System.Logger LOG = System.getLogger(HangupSignal.class.getName());

    private HangupSignal() {
    }

    /**
     * Runs {@code action} on a new virtual thread for each SIGHUP from now on (the signal thread is never blocked).
     *
     * @return false when this platform or JVM does not let SIGHUP be handled (Windows, {@code -Xrs})
     */
    public static boolean install(Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> Thread.ofVirtual().name("reload-sighup")
                    .start(action));
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LOG.log(Level.INFO, "SIGHUP cannot be handled here ({0}); reload with usher reload or by saving the "
                    + "config file", e.getMessage());
            return false;
        }
    }
}
