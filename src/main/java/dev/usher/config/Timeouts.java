package dev.usher.config;

import java.time.Duration;

/**
 * Global time limits ({@code timeouts:} in the file).
 *
 * @param connect  how long to wait for a TCP connection to a backend (then 504)
 * @param response how long to wait for a backend's response head, and between bytes of its body (then 504)
 * @param header   how long a client may take to send a whole request head, from its first byte (slowloris)
 * @param idle     how long a keep-alive client connection may wait for its next request
 */
public record Timeouts(Duration connect, Duration response, Duration header, Duration idle) {
    /** The defaults: connect 5 s, response 60 s, header 10 s, idle 60 s. */
    public static final Timeouts DEFAULTS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60),
            Duration.ofSeconds(10), Duration.ofSeconds(60));
}
