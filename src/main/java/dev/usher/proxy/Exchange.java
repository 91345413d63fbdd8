package dev.usher.proxy;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;

/**
 * One request being answered on a client side, as its protocol handler sees it: proxied to a backend
 * ({@link ProxyExchange}) or served from a folder ({@link FileExchange}). The handler feeds it the rest of the
 * request and the client connection's events, and holds later requests back until it is done.
 *
 * <p>Threading: the client channel's event loop.
 */
interface Exchange {
    /** Begins answering, once the site's rules let the request through. */
    void start();

    /** Ends the exchange before it started, with a local answer from the site's rules (a 401, a login redirect). */
    void reject(FullHttpResponse answer);

    /** A piece of the request body (the exchange owns it). */
    void clientContent(HttpContent content);

    /** The end of a client read batch. */
    void clientReadComplete();

    /** The client connection became writable or not. */
    void clientWritabilityChanged(boolean writable);

    /** The client went away. */
    void clientClosed();

    /** The client of {@code exchange} went away, when there is one running (null: none). */
    static void abandon(Exchange exchange) {
        if (exchange != null) {
            exchange.clientClosed();
        }
    }

    /** The request body stopped arriving for the read timeout (HTTP/2 and HTTP/3). */
    void clientStalled();

    /** Usher is stopping: this response ends the connection. */
    void closeAfterResponse();

    /** True when a body follows the request head. */
    boolean hasBody();

    /** True once the client's whole request (head and body) has arrived. */
    boolean requestReceived();

    /** True when the client connection may already read what follows this request. */
    boolean mayReadAhead();

    /** True while the exchange waits for more of the request body from the client (for its read timeout). */
    boolean waitingOnClient();

    /** The longest pause allowed while the request body is being read. */
    long readTimeoutNanos();

    /** How long the client connection may then wait for its next request. */
    long keepAliveIdleNanos();
}
