package dev.usher.server;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * The process's limit of open files (descriptors), and how many client connections it can hold. Each proxied
 * connection costs two descriptors (the client's socket and a backend connection); the rest of the process needs a
 * few dozen more (listeners, the event loops' epoll and event descriptors, log and certificate files, the admin
 * endpoint, the JVM's own jars), which {@link #reserve} keeps back.
 *
 * @param max the limit (RLIMIT_NOFILE as the JVM left it), or 0 when it cannot be known
 */
public record OpenFileLimit(long max) {
    /** {@code limits.connections} when the file sets none and the descriptor limit allows it. */
    public static final int DEFAULT_CONNECTIONS = 10_000;

    /** The limit of this process (0 where the platform does not say). */
    public static OpenFileLimit ofThisProcess() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return new OpenFileLimit(os instanceof com.sun.management.UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : 0);
    }

    /** Descriptors kept for everything but client connections and their backend connections: 64 plus a tenth. */
    long reserve() {
        return 64 + max / 10;
    }

    /** The most client connections the limit holds with a backend connection each (at least 1); max if unknown. */
    public int connectionsHeld() {
        if (max <= 0) {
            return Integer.MAX_VALUE;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (max - reserve()) / 2));
    }

    /**
     * The cap on client connections: {@code configured} when the file sets one (a value the limit cannot hold is
     * the user's choice, warned about by {@link #warning}), otherwise {@link #DEFAULT_CONNECTIONS} or what the
     * limit holds, whichever is lower.
     *
     * @param configured {@code limits.connections}, or 0 when the file sets none
     */
    public int connections(int configured) {
        return configured > 0 ? configured : Math.min(DEFAULT_CONNECTIONS, connectionsHeld());
    }

    /** A warning for a configured {@code limits.connections} this limit cannot hold, or null. */
    public String warning(int configured) {
        int held = connectionsHeld();
        if (configured > 0 && configured > held) {
            return "limits.connections is " + configured + ", but the open-file limit of " + max
                    + " holds about " + held + " proxied connections: past that, new connections wait until some"
                    + " close. Raise the limit (ulimit -n; systemd: LimitNOFILE=) or lower limits.connections";
        }
        return null;
    }

    /** A note for an unset {@code limits.connections} lowered to what this limit holds, or null. */
    public String lowered(int configured) {
        int held = connectionsHeld();
        if (configured <= 0 && held < DEFAULT_CONNECTIONS) {
            return "limits.connections: " + held + " (what the open-file limit of " + max + " holds with a"
                    + " backend connection each, instead of " + DEFAULT_CONNECTIONS + "). Raise the limit (ulimit"
                    + " -n; systemd: LimitNOFILE=) for more";
        }
        return null;
    }
}
