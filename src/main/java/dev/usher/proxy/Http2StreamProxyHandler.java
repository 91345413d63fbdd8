package dev.usher.proxy;

import dev.usher.config.SiteTraffic;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;

/**
 * The last handler of one HTTP/2 stream's child channel (after {@code Http2StreamFrameToHttpObjectCodec}), or of
 * one HTTP/3 request stream (after {@code Http3FrameToHttpObjectCodec}; see {@link StreamProtocol}): the
 * stream's single request is routed and proxied like an HTTP/1.1 one, through {@link RequestDispatch} and a
 * {@link ProxyExchange}, to the same keep-alive backend pools.
 *
 * <p>Backpressure: the child channel's auto-read is off; the exchange asks for more of the request body
 * ({@code read()}) only while the backend connection is writable, and Netty returns flow-control window to the
 * client as the child reads, so a slow backend holds the client to the stream window. Responses are written while
 * the child channel is writable, which follows the stream's send window: when it is not, the backend is not read.
 *
 * <p>Ending a stream early ({@link #abortConnection()}, a client reset) closes only this child channel, which sends
 * RST_STREAM(CANCEL); the connection and its other streams go on. The backend connection of an abandoned exchange is
 * closed, never pooled, since it may hold half an exchange. A complete local answer given before the request body
 * is in is followed by RST_STREAM(NO_ERROR) instead: the client stops sending and keeps the answer (RFC 9113 §8.1).
 *
 * <p>A request body that stops arriving for the site's read timeout ends the stream ({@link StreamBodyTimeout}):
 * with a 408 while no response has begun, otherwise with a reset.
 *
 * <p>Threading: a child channel runs on its parent connection's event loop, so the exchange, its backend connection
 * (leased from that loop's pool) and this handler share one thread.
 */
public final class Http2StreamProxyHandler extends ChannelInboundHandlerAdapter implements ClientSide {
    private final RouteTableHolder routes;
    private final StreamProtocol protocol;
    private ChannelHandlerContext ctx;
    private RequestDispatch dispatch;
    private Exchange exchange;
    private StreamBodyTimeout bodyTimeout;
    /** The request head arrived; anything after it belongs to the exchange, or is dropped. */
    private boolean started;
    /**
     * HTTP/3: a request head waiting for the stream's next event, which says whether a body follows (a DATA frame)
     * or not (the stream's end). A GET is then forwarded as a GET, without an empty chunked body.
     */
    private HttpRequest heldHead;

    /** @param routes the current route table, read once for the stream's request */
    public Http2StreamProxyHandler(RouteTableHolder routes) {
        this(routes, StreamProtocol.HTTP2);
    }

    /** @param protocol whether the stream is an HTTP/2 or an HTTP/3 one */
    public Http2StreamProxyHandler(RouteTableHolder routes, StreamProtocol protocol) {
        this.routes = routes;
        this.protocol = protocol;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().config().setAutoRead(false);
        dispatch = new RequestDispatch(routes, "https", this, ctx, protocol.clientAddress(ctx.channel()));
        bodyTimeout = new StreamBodyTimeout(ctx, this::bodyTimedOut);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (protocol.headMayTrickle()) {
            // Slowloris: the whole head within timeouts.header of the stream's first byte, as over HTTP/1.1.
            bodyTimeout.start(routes.get().config().timeouts().header().toNanos(), () -> true);
        }
        ctx.read(); // the request head
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!started && msg instanceof HttpRequest request) {
            started = true;
            if (msg instanceof FullHttpRequest full) {
                // HEADERS with END_STREAM (and possibly trailers' worth of nothing): split into a head and its end,
                // as the HTTP/1.1 decoder delivers them.
                HttpRequest head = new DefaultHttpRequest(full.protocolVersion(), full.method(), full.uri(),
                        full.headers());
                DefaultLastHttpContent end = new DefaultLastHttpContent(full.content(), full.trailingHeaders());
                startRequest(head, false);
                forward(end);
            } else if (protocol.headAloneMayEndTheStream()) {
                heldHead = request;
                // Should the stream's next event never come, the stream still ends (see startRequest).
                bodyTimeout.start(SiteTraffic.DEFAULTS.readTimeout().toNanos(), () -> true);
            } else {
                startRequest(request, true);
            }
        } else if (heldHead != null) {
            HttpRequest head = heldHead;
            heldHead = null;
            boolean bodiless = msg instanceof LastHttpContent last && !last.content().isReadable()
                    && last.trailingHeaders().isEmpty();
            if (bodiless) {
                // Netty's HTTP/3 conversion marks a head without Content-Length as chunked (a client cannot send
                // Transfer-Encoding over HTTP/3): with no body after all, the mark goes.
                head.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
            }
            startRequest(head, !bodiless);
            forward(msg);
            endOfStreamRead(msg);
        } else {
            forward(msg);
            endOfStreamRead(msg);
        }
    }

    /**
     * HTTP/3 passes the end of the stream on after the read batch's {@code channelReadComplete} (QUIC reports FIN
     * last): the end is a batch of its own, so the exchange hears of it as one (and sends a head it held back).
     */
    private void endOfStreamRead(Object msg) {
        if (protocol.headAloneMayEndTheStream() && msg instanceof LastHttpContent && exchange != null) {
            exchange.clientReadComplete();
        }
    }

    private void forward(Object msg) {
        if (msg instanceof LastHttpContent) {
            bodyTimeout.stop();
        } else if (msg instanceof HttpContent) {
            bodyTimeout.bodyRead();
        }
        if (exchange != null && msg instanceof HttpContent content) {
            exchange.clientContent(content);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    private void startRequest(HttpRequest request, boolean hasBody) {
        if (hasBody) {
            // Until an exchange sets the site's own timeout: the default one, so that a stream answered locally
            // whose answer cannot be written (the client gives it no window) does not stay open for good either.
            bodyTimeout.start(SiteTraffic.DEFAULTS.readTimeout().toNanos(), () -> true);
        }
        HttpHeaders headers = request.headers();
        // Netty's conversion adds x-http2-stream-id (x-http3-stream-id) and friends; they describe this hop and must
        // not reach backends (nor may a client smuggle them in).
        protocol.removeConversionHeaders(headers);
        if (ctx.channel().hasAttr(StreamProtocol.MALFORMED)) {
            dispatch.respond(HttpResponseStatus.BAD_REQUEST, true);
            return;
        }
        if (request.method().equals(HttpMethod.CONNECT)) {
            dispatch.respond(HttpResponseStatus.METHOD_NOT_ALLOWED, true);
            return;
        }
        String host = host(headers);
        String uri = request.uri();
        if (host == null || !(uri.startsWith("/") || uri.equals("*") && request.method().equals(HttpMethod.OPTIONS))) {
            dispatch.respond(HttpResponseStatus.BAD_REQUEST, true);
            return;
        }
        // An HTTP/2 request never upgrades: no websocket over h2 (RFC 8441 is not offered in SETTINGS).
        dispatch.dispatch(request, host, RequestShape.of(hasBody));
    }

    /**
     * The host from {@code :authority} (which Netty's conversion puts in Host), or a Host header: null when there is
     * none, when several disagree, or when it is not a plain authority.
     */
    private static String host(HttpHeaders headers) {
        // The usual single value is read without copying the header's values into a list.
        Iterator<String> values = headers.valueStringIterator(HttpHeaderNames.HOST);
        if (!values.hasNext()) {
            return null;
        }
        String first = values.next();
        if (values.hasNext()) {
            return agreedHost(headers);
        }
        String host = first.trim();
        return RequestTarget.validAuthority(host) ? host : null;
    }

    /** Several Host values (or :authority and a Host): one host when they all agree, kept as a single header. */
    private static String agreedHost(HttpHeaders headers) {
        List<String> hosts = headers.getAll(HttpHeaderNames.HOST);
        String host = hosts.get(0).trim();
        for (int i = 1; i < hosts.size(); i++) {
            if (!hosts.get(i).trim().equalsIgnoreCase(host)) {
                return null;
            }
        }
        headers.set(HttpHeaderNames.HOST, host);
        return RequestTarget.validAuthority(host) ? host : null;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (heldHead != null && !protocol.inputEnded(ctx.channel())) {
            // No end of stream with the head: a body follows in later reads.
            HttpRequest head = heldHead;
            heldHead = null;
            startRequest(head, true);
        }
        if (exchange != null) {
            exchange.clientReadComplete();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.clientWritabilityChanged(ctx.channel().isWritable());
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * The request body stopped arriving. The exchange answers 408 if it can, else resets the stream, and closes its
     * backend connection (which holds half a request). Without an exchange (a local answer still not written),
     * the stream is reset; so is an HTTP/3 stream whose head did not come in whole in time.
     */
    private void bodyTimedOut() {
        if (!started) {
            protocol.headTimedOut(ctx);
        } else if (exchange != null) {
            exchange.clientStalled();
        } else {
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        bodyTimeout.stop();
        // The stream ended: normally after the response, or early by a client RST_STREAM, a GOAWAY or the
        // connection closing. An exchange still running is abandoned and its backend connection closed.
        Exchange gone = exchange; // cleared first: the teardown may call back into this handler
        exchange = null;
        Exchange.abandon(gone);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A malformed frame sequence on this stream, or a write that failed: reset the stream only.
        ctx.close();
    }

    @Override
    public boolean isHttps() {
        return true;
    }

    @Override
    public boolean zeroCopy() {
        return false; // frames over TLS or QUIC: every byte goes through the stream's codec
    }

    @Override
    public void respond(FullHttpResponse response, boolean close) {
        ChannelFuture written = ctx.writeAndFlush(response);
        if (close) {
            bodyTimeout.answering();
            written.addListener(f -> protocol.endAfterAnswer(ctx, f));
        }
    }

    /*
     * The request body is not wanted: once the complete answer is out, the stream protocol tells the client to stop
     * sending it without discarding the answer: RST_STREAM(NO_ERROR) on HTTP/2 (RFC 9113 §8.1), STOP_SENDING on
     * HTTP/3. When the client had already ended its side, the stream closed with the answer and nothing is due.
     */

    /** The exchange under way, or null (for tests of its phases). */
    Exchange exchange() {
        return exchange;
    }

    @Override
    public ResponseTimer responseTimer() {
        // A stream carries one exchange: its timer goes with it.
        return new ResponseTimer(ctx.executor(), false);
    }

    @Override
    public void exchangeStarted(Exchange started) {
        exchange = started;
        if (started.hasBody()) {
            bodyTimeout.start(started.readTimeoutNanos(), started::waitingOnClient);
        }
    }

    @Override
    public void exchangeDone(Exchange done, boolean closeConnection) {
        if (exchange == done) {
            exchange = null;
        }
    }

    @Override
    public void abortConnection() {
        exchange = null;
        bodyTimeout.stop();
        ctx.close();
    }

    @Override
    public void switchToRelay(Channel backend, boolean websocket, Duration idleTimeout) {
        throw new IllegalStateException("HTTP/2 streams never switch protocols");
    }
}
