package dev.usher.proxy;

/**
 * Why a {@link ProxyExchange} ended. Its one teardown ({@code end}) goes by this: the backend connection back to its
 * pool or closed, and what the client side hears.
 */
enum Ending {
    /** The response was carried in full. */
    COMPLETED,
    /** A 101: the connections were handed to a relay. */
    UPGRADED,
    /** Answered with a local error page, before any response byte went out (502, 503, 504, 400, 408, 413). */
    LOCAL_ANSWER,
    /** The site's rules answered (e.g. a 401) before the exchange started. */
    REJECTED,
    /** The client went away. */
    CLIENT_GONE,
    /** The backend failed (closed, went silent, sent garbage) after the response began: the client is cut. */
    BACKEND_FAILED,
    /** The request body went wrong (malformed, too large, stalled) after the response began: the client is cut. */
    REQUEST_FAILED,
    /** The client stopped reading for the write timeout: both connections are cut. */
    WRITE_TIMEOUT
}
