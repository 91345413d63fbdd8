package dev.usher.config;

/**
 * Whether a backend is sent a PROXY protocol header (HAProxy's format) before the client's bytes, so that it learns
 * the client's address through a relay that does not look inside the connection ({@code proxy_protocol:} on a stream
 * or a passthrough site).
 */
public enum ProxyProtocol {
    /** No header: the backend sees Usher as the client. */
    OFF,
    /** The human-readable header, {@code PROXY TCP4 203.0.113.9 192.0.2.1 51234 443\r\n}. */
    V1,
    /** The binary header (version 2). */
    V2;

    /** As written in the file: {@code off}, {@code v1}, {@code v2}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
