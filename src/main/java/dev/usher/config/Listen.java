package dev.usher.config;

/**
 * The listeners Usher binds ({@code listen:} in the file).
 *
 * @param http the plain-HTTP listener, {@code :80} by default
 */
public record Listen(ListenAddress http) {
}
