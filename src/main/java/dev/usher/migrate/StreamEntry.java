package dev.usher.migrate;

/**
 * A TCP or UDP port relayed to one backend, as the source had it: one line of {@code streams:}.
 *
 * @param origin where it came from
 * @param listen the stream's key: {@code ":2222"} for TCP, {@code ":27015/udp"} for UDP
 * @param to     the backend, {@code host:port}
 */
public record StreamEntry(Origin origin, String listen, String to) {
}
