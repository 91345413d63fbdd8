package dev.usher.proxy;

/** How far a {@link ProxyExchange}'s request has gone to the backend. */
enum RequestPhase {
    /**
     * The head waits for the end of the client's read batch, so that a request whose first body chunk is malformed
     * is refused with nothing sent to the backend.
     */
    HELD,
    /** The head goes as soon as a backend connection is there. */
    READY,
    /** The head went; the body follows as it arrives. */
    HEAD_SENT,
    /** All of the request went. */
    SENT;

    boolean headSent() {
        return this == HEAD_SENT || this == SENT;
    }
}
