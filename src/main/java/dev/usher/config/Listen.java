package dev.usher.config;

/**
 * The listeners Usher binds ({@code listen:} in the file).
 *
 * @param http  the plain-HTTP listener, {@code :80} by default
 * @param https the HTTPS listener, {@code :443} by default; null when switched off ({@code https: off}), and then
 *              every site is served over plain HTTP
 * @param http3 whether HTTPS is also served as HTTP/3 over QUIC, on the HTTPS port over UDP (top-level
 *              {@code http3:}, default true); meaningless while {@code https} is off
 */
public record Listen(ListenAddress http, ListenAddress https, boolean http3) {
    /** Plain HTTP only. */
    public Listen(ListenAddress http) {
        this(http, null);
    }

    /** HTTP/3 on (the default) whenever HTTPS is. */
    public Listen(ListenAddress http, ListenAddress https) {
        this(http, https, true);
    }

    /** True when Usher is to serve HTTP/3 (HTTPS is on and {@code http3:} is not false). */
    public boolean http3On() {
        return https != null && http3;
    }

    /** True when Usher serves HTTPS at all. */
    public boolean httpsOn() {
        return https != null;
    }
}
