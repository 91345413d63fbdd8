package dev.usher.proxy;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;

import java.time.Duration;

/**
 * What an {@link Exchange} needs from the protocol handler that owns its client side: an HTTP/1.1 connection
 * ({@link Http1ProxyHandler}) or one HTTP/2 stream ({@link Http2StreamProxyHandler}). "Connection" below means
 * that client side: closing it closes the TCP connection for HTTP/1.1 and resets only the stream for HTTP/2.
 *
 * <p>Threading: every method is called on the client channel's event loop.
 */
interface ClientSide {
    /** True when the client came over TLS (HSTS and the like). */
    boolean isHttps();

    /**
     * True when a file may go to this client side by zero-copy transfer ({@code FileRegion}): a plain-TCP HTTP/1.1
     * connection, where the bytes need no encryption or framing on the way.
     */
    boolean zeroCopy();

    /** Answers the current request with {@code response}; closes the connection after it when {@code close}. */
    void respond(FullHttpResponse response, boolean close);

    /** The response timer for this client side's exchanges (one per connection for HTTP/1.1, per stream for h2). */
    ResponseTimer responseTimer();

    /** An exchange was created for the current request (before it starts, so a quick failure finds it known). */
    void exchangeStarted(Exchange exchange);

    /** The exchange's response has been written in full (or it was answered locally). */
    void exchangeDone(Exchange done, boolean closeConnection);

    /** The exchange gave up on the connection (e.g. a backend failed mid-response): cut it, with no answer. */
    void abortConnection();

    /**
     * After a 101 from the backend: this connection and {@code backend} relay raw bytes to each other from now on
     * (HTTP/1.1 only). {@code websocket}: the protocol is the websocket one, whose frames the relay follows.
     */
    void switchToRelay(Channel backend, boolean websocket, Duration idleTimeout);
}
