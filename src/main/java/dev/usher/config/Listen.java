package dev.usher.config;

/**
 * The listeners Usher binds ({@code listen:} in the file).
 *
 * @param http  the plain-HTTP listener, {@code :80} by default
 * @param https the HTTPS listener, {@code :443} by default; null when switched off ({@code https: off}), and then
 *              every site is served over plain HTTP
 */
public record Listen(ListenAddress http, ListenAddress https) {
    /** Plain HTTP only. */
    public Listen(ListenAddress http) {
        this(http, null);
    }

    /** True when Usher serves HTTPS at all. */
    public boolean httpsOn() {
        return https != null;
    }
}
