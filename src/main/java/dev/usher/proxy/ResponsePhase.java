package dev.usher.proxy;

/** How far a {@link ProxyExchange}'s response has come back to the client. */
enum ResponsePhase {
    /** No head yet (or only interim ones, passed on). */
    AWAITING_HEAD,
    /** An interim head (100 Continue…) went to the client; its end marker from the decoder is to be dropped. */
    INTERIM,
    /** The final head went to the client; the body follows. */
    STREAMING,
    /**
     * A backend's 5xx that the site's {@code error_pages: {intercept: true}} replaces: its body is read and dropped,
     * then the site's page goes instead. Nothing of it reached the client.
     */
    REPLACING,
    /** The response went to the client in full. */
    DONE,
    /** A 101: both connections are a byte relay now. */
    RELAYED;

    /** Part of the response is with the client: an error page can no longer be sent instead. */
    boolean started() {
        return this == STREAMING || this == DONE || this == RELAYED;
    }
}
