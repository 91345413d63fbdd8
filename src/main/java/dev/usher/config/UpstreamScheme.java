package dev.usher.config;

/** How Usher speaks to a backend: the scheme written before its address. */
public enum UpstreamScheme {
    /** {@code http://} or none: HTTP/1.1 over TCP. */
    HTTP("http://", 80),
    /** {@code https://}: HTTP/1.1 over TLS, or HTTP/2 when {@code upstream_tls.alpn} offers h2 and the backend takes it. */
    HTTPS("https://", 443),
    /** {@code h2c://}: HTTP/2 over TCP with prior knowledge (gRPC services, h2c servers). */
    H2C("h2c://", 80);

    private final String prefix;
    private final int defaultPort;

    UpstreamScheme(String prefix, int defaultPort) {
        this.prefix = prefix;
        this.defaultPort = defaultPort;
    }

    /** What the scheme looks like in the file: {@code https://}. */
    public String prefix() {
        return prefix;
    }

    /** The port when the address gives none. */
    public int defaultPort() {
        return defaultPort;
    }
}
