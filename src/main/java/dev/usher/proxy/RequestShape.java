package dev.usher.proxy;

/**
 * How the client framed its request, as far as proxying it depends on it: what a protocol handler tells
 * {@link RequestDispatch#dispatch} besides the request itself. Each of the 16 values exists once, made in advance
 * ({@link #of} and the {@code with} methods pick one), so a request costs no allocation for it.
 *
 * @param keepAlive whether the client connection may serve another request after this one
 * @param http10    whether the client spoke HTTP/1.0 (no chunked coding, no interim answers)
 * @param hasBody   whether a body follows the head
 * @param upgrade   whether the request asks to switch protocols (a websocket; HTTP/1.1 only)
 */
record RequestShape(boolean keepAlive, boolean http10, boolean hasBody, boolean upgrade) {
    private static final RequestShape[] ALL = new RequestShape[16];

    static {
        for (int i = 0; i < ALL.length; i++) {
            ALL[i] = new RequestShape((i & 8) != 0, (i & 4) != 0, (i & 2) != 0, (i & 1) != 0);
        }
    }

    /**
     * An HTTP/1.1 request on a connection that stays open after it, asking for no upgrade: also what every HTTP/2
     * and HTTP/3 request is (a stream carries one request, and its connection goes on).
     */
    static RequestShape of(boolean hasBody) {
        return pick(true, false, hasBody, false);
    }

    /** This shape, on a connection that does or does not stay open after the request. */
    RequestShape withKeepAlive(boolean value) {
        return pick(value, http10, hasBody, upgrade);
    }

    /** This shape, from an HTTP/1.0 client or not. */
    RequestShape withHttp10(boolean value) {
        return pick(keepAlive, value, hasBody, upgrade);
    }

    /** This shape, asking to switch protocols or not. */
    RequestShape withUpgrade(boolean value) {
        return pick(keepAlive, http10, hasBody, value);
    }

    private static RequestShape pick(boolean keepAlive, boolean http10, boolean hasBody, boolean upgrade) {
        return ALL[(keepAlive ? 8 : 0) | (http10 ? 4 : 0) | (hasBody ? 2 : 0) | (upgrade ? 1 : 0)];
    }
}
