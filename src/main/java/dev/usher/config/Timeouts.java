package dev.usher.config;

import java.time.Duration;

/**
 * Global time limits ({@code timeouts:} in the file).
 *
 * @param connect  how long to wait for a TCP connection to a backend (then 504)
 * @param response how long to wait for a backend's response head, and between bytes of its body (then 504)
 * @param header   how long a client may take to send a whole request head, from its first byte (slowloris)
 * @param idle     how long a keep-alive client connection may wait for its next request
 * @param shutdown the grace period of a graceful stop (SIGTERM/SIGINT): how long requests in flight may take to
 *                 finish before whatever is still open is cut (at most {@link #MAX_SHUTDOWN})
 */
public record Timeouts(Duration connect, Duration response, Duration header, Duration idle, Duration shutdown) {
    /** The default grace period of a graceful stop. */
    public static final Duration DEFAULT_SHUTDOWN = Duration.ofSeconds(10);
    /** The longest grace period accepted: longer is surely a typo, and a supervisor would kill Usher first. */
    public static final Duration MAX_SHUTDOWN = Duration.ofHours(1);
    /** The defaults: connect 5 s, response 60 s, header 10 s, idle 60 s, shutdown 10 s. */
    public static final Timeouts DEFAULTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60),
            Duration.ofSeconds(10), Duration.ofSeconds(60), DEFAULT_SHUTDOWN);

    /** Timeouts with the default shutdown grace period. */
    public Timeouts(Duration connect, Duration response, Duration header, Duration idle) {
        this(connect, response, header, idle, DEFAULT_SHUTDOWN);
    }
}
