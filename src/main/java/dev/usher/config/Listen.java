package dev.usher.config;

import java.util.List;

/**
 * The listeners Usher binds ({@code listen:} in the file).
 *
 * @param http  the plain-HTTP listener, {@code :80} by default
 * @param https the HTTPS listener, {@code :443} by default; null when switched off ({@code https: off}), and then
 *              every site is served over plain HTTP
 * @param http3 whether HTTPS is also served as HTTP/3 over QUIC, on the HTTPS port over UDP (top-level
 *              {@code http3:}, default true); meaningless while {@code https} is off
 * @param proxyProtocolFrom load balancers in front of Usher ({@code listen: {proxy_protocol: [...]}}): a TCP
 *              connection from these networks must start with a PROXY protocol header, whose client address Usher
 *              then takes as the client's; from anywhere else a header is not looked for. Empty: none
 */
public record Listen(ListenAddress http, ListenAddress https, boolean http3, List<Cidr> proxyProtocolFrom) {
    public Listen {
        proxyProtocolFrom = List.copyOf(proxyProtocolFrom);
    }

    /** No load balancer sends PROXY protocol headers. */
    public Listen(ListenAddress http, ListenAddress https, boolean http3) {
        this(http, https, http3, List.of());
    }

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
