package dev.usher.observe;

/** How a relayed connection (a stream's, or a passthrough site's) or a UDP session ended, for logs and metrics. */
public enum StreamEnding {
    /** The client closed first (or half-closed, and then the backend finished). */
    CLIENT_CLOSED,
    /** The backend closed first. */
    UPSTREAM_CLOSED,
    /** No byte either way for the idle timeout. */
    IDLE_TIMEOUT,
    /** Every backend tried refused or did not answer the connect in time. */
    CONNECT_FAILED,
    /** No backend to try: all are down by health checks, or none serves the TLS server name asked for. */
    NO_UPSTREAM,
    /** The client is not allowed (allow/deny). */
    DENIED,
    /** The stream had its most connections (or sessions) open already. */
    OVER_LIMIT,
    /** A read or write failed on either side (a reset). */
    ERROR,
    /** Usher stopped while the connection was open. */
    SHUTDOWN;

    /** {@code client_closed}, {@code idle_timeout}: as logs and metrics write it. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
