package dev.usher.proxy;

import dev.usher.net.ClientAddress;
import dev.usher.net.DrainEvent;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The last handler of an HTTP/1.1 client connection: routes each request by host and hands it to a
 * {@link ProxyExchange}, one request at a time. Reads from the client only when the current exchange can take more
 * (auto-read is off), so a slow backend slows the client instead of filling memory. Messages of pipelined requests
 * that the decoder already produced wait in a small queue (at most one socket read's worth).
 *
 * <p>Threading: everything runs on the client channel's event loop, which is also the backend channel's.
 */
public final class Http1ProxyHandler extends ChannelInboundHandlerAdapter implements ClientSide {
    /** Pipeline names this handler relies on when switching to a raw relay after a 101. */
    public static final String CODEC_NAME = "http";
    public static final String TIMEOUTS_NAME = "timeouts";
    public static final String COMPRESSOR_NAME = "compress";
    /**
     * Set before each response: whether the site lets responses be compressed. Read by the compression handler
     * when it sees the response head (requests are served one at a time, so the value is the current one's).
     */
    public static final AttributeKey<Boolean> COMPRESS = AttributeKey.valueOf("usher.compress");

    /** Decoded messages that may wait for their turn: pipelined requests beyond this close the connection. */
    private static final int MAX_QUEUED = 512;

    private final RouteTableHolder routes;
    private final String scheme;
    private final ClientTimeouts timeouts;
    private final ArrayDeque<Object> later = new ArrayDeque<>(2);
    private ChannelHandlerContext ctx;
    private RequestDispatch dispatch;
    private Exchange exchange;
    private ResponseTimer responseTimer;
    private boolean closing;
    /** Usher is stopping: no request after the current one (see {@link DrainEvent}). */
    private boolean draining;

    /**
     * @param routes   the current route table, read once per request
     * @param scheme   {@code http} or {@code https}: what the client used, for {@code X-Forwarded-Proto}
     * @param timeouts the connection's slowloris guard, told when requests start and end
     */
    public Http1ProxyHandler(RouteTableHolder routes, String scheme, ClientTimeouts timeouts) {
        this.routes = routes;
        this.scheme = scheme;
        this.timeouts = timeouts;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        responseTimer = new ResponseTimer(ctx.executor(), true);
        ctx.channel().config().setAutoRead(false);
        dispatch = new RequestDispatch(routes, scheme, this, ctx, ClientAddress.of(ctx.channel()));
        if (ctx.channel().isActive()) {
            // Added after the connection became active (over TLS, once ALPN chose HTTP/1.1): no channelActive
            // follows, so the first read is asked for here.
            ctx.read();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
        } else if (!later.isEmpty() || (exchange != null && exchange.requestReceived())
                || (exchange == null && !ctx.channel().isWritable())) {
            // A later request, or one that would be answered into a client that is not reading its answers:
            // it waits. The queue holds at most what one read decoded; a flood of tiny pipelined requests is cut.
            if (later.size() >= MAX_QUEUED) {
                ReferenceCountUtil.release(msg);
                abortConnection();
                return;
            }
            later.add(msg);
        } else {
            handle(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.clientReadComplete();
            if (exchange != null && later.isEmpty() && exchange.mayReadAhead() && ctx.channel().isWritable()) {
                // The whole request is in: keep the read armed for the next one (at most one read's worth waits
                // in the queue, as with pipelining). Clearing and re-arming the read interest cost two epoll_ctl
                // calls per request.
                ctx.read();
            }
        } else if (!closing && later.isEmpty() && ctx.channel().isWritable()) {
            ctx.read();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (exchange != null) {
            exchange.clientWritabilityChanged(ctx.channel().isWritable());
        } else if (ctx.channel().isWritable() && !closing) {
            resume();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        responseTimer.close();
        releaseLater();
        Exchange gone = exchange; // cleared first: the teardown may call back into this handler
        exchange = null;
        Exchange.abandon(gone);
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof DrainEvent drain) {
            drain(drain);
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * Shutdown: an idle connection closes now; one serving a request (or receiving one: its first bytes came)
     * answers it with {@code Connection: close} and then closes. Pipelined requests after it are not served.
     */
    private void drain(DrainEvent event) {
        boolean busy = exchange != null || !later.isEmpty() || !timeouts.betweenRequests();
        event.claim(busy && !closing ? 1 : 0);
        if (draining || closing) {
            return;
        }
        draining = true;
        if (exchange != null) {
            exchange.closeAfterResponse();
        } else if (!busy) {
            closing = true;
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Resets and broken pipes from clients are routine on the internet; nothing to report.
        ctx.close();
    }

    private void handle(Object msg) {
        if (exchange != null) {
            if (msg instanceof HttpContent content) {
                exchange.clientContent(content);
                if (exchange != null && exchange.requestReceived()) {
                    timeouts.busy();
                }
            } else {
                ReferenceCountUtil.release(msg);
            }
        } else if (msg instanceof HttpRequest request) {
            startRequest(request);
        } else {
            // The end of a request answered locally (e.g. a 404 for a GET): nothing left to do with it.
            ReferenceCountUtil.release(msg);
        }
    }

    private void startRequest(HttpRequest request) {
        timeouts.busy();
        if (request.decoderResult().isFailure()) {
            respond(statusFor(request.decoderResult().cause()), true);
            return;
        }
        HttpHeaders headers = request.headers();
        boolean http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
        boolean hasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        String transferEncoding = headers.get(HttpHeaderNames.TRANSFER_ENCODING);
        if (transferEncoding != null && !transferEncoding.trim().equalsIgnoreCase("chunked")) {
            // "gzip, chunked" and the like: a coding Usher would have to undo or pass on; no client needs it.
            respond(HttpResponseStatus.BAD_REQUEST, true);
            return;
        }
        if (request.method().equals(HttpMethod.CONNECT)) {
            respond(HttpResponseStatus.METHOD_NOT_ALLOWED, true);
            return;
        }
        String host = RequestTarget.resolveHost(request);
        if (host == null) {
            respond(HttpResponseStatus.BAD_REQUEST, true);
            return;
        }
        dispatch.dispatch(request, host, RequestShape.of(hasBody)
                .withKeepAlive(HttpUtil.isKeepAlive(request) && !draining)
                .withHttp10(http10)
                .withUpgrade(isUpgrade(headers)));
    }

    @Override
    public void exchangeStarted(Exchange started) {
        exchange = started;
        if (started.hasBody()) {
            timeouts.awaitBody(started.readTimeoutNanos(), started::waitingOnClient);
        }
    }

    /** The exchange under way, or null (for tests of its phases). */
    Exchange exchange() {
        return exchange;
    }

    @Override
    public ResponseTimer responseTimer() {
        return responseTimer;
    }

    @Override
    public boolean isHttps() {
        return dispatch.isHttps();
    }

    @Override
    public boolean zeroCopy() {
        return !dispatch.isHttps();
    }

    /**
     * An upgrade to pass through: websockets and other protocols, but never h2c. A backend that accepted h2c would
     * take every later request on the tunnel straight from the client, past Usher's routing and the site's rules
     * ("h2c smuggling"); without the upgrade the request is served as plain HTTP/1.1.
     */
    private static boolean isUpgrade(HttpHeaders headers) {
        String upgrade = headers.get(HttpHeaderNames.UPGRADE);
        return upgrade != null
                && headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                && !upgrade.toLowerCase(java.util.Locale.ROOT).contains("h2c");
    }

    private static HttpResponseStatus statusFor(Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        if (cause instanceof TooLongHttpLineException) {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        if (cause instanceof TooLongFrameException) {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        return HttpResponseStatus.BAD_REQUEST;
    }

    /** Answers the current request locally, with no exchange; closes after it when {@code close}. */
    void respond(HttpResponseStatus status, boolean close) {
        dispatch.respond(status, close);
    }

    /** Answers the current request with {@code response}; closes after it when {@code close}. */
    @Override
    public void respond(FullHttpResponse response, boolean close) {
        close |= draining;
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        ChannelFuture written = ctx.writeAndFlush(response);
        if (close) {
            closing = true;
            releaseLater();
            written.addListener(ChannelFutureListener.CLOSE);
            timeouts.closeSoon();
        } else {
            timeouts.awaitRequest();
        }
    }

    /** Called by the exchange when its response has been written in full (or it was answered locally). */
    @Override
    public void exchangeDone(Exchange done, boolean closeConnection) {
        if (exchange != done) {
            return;
        }
        exchange = null;
        if (closeConnection || closing || draining) {
            closing = true;
            releaseLater();
            timeouts.closeSoon();
            return;
        }
        timeouts.awaitRequest(done.keepAliveIdleNanos());
        resume();
    }

    /**
     * Between requests: serves what pipelined requests already wait in the queue, as long as the client takes its
     * answers, then reads more once the queue is empty.
     */
    private void resume() {
        Object msg;
        while (!closing && (msg = later.peek()) != null && (exchange == null || !exchange.requestReceived())
                && (exchange != null || ctx.channel().isWritable())) {
            later.poll();
            handle(msg);
        }
        if (exchange != null) {
            exchange.clientReadComplete();
        } else if (!closing && later.isEmpty() && ctx.channel().isWritable()) {
            ctx.read();
        }
    }

    /** The exchange gave up on the connection (e.g. a backend failed mid-response). */
    @Override
    public void abortConnection() {
        closing = true;
        exchange = null;
        releaseLater();
        ctx.close();
    }

    /**
     * After a 101 from the backend, turns this connection and {@code backend} into a raw byte relay: on this side the
     * HTTP codec, the timeouts and this handler leave the pipeline, on the backend's its HTTP codec and its pool's
     * handler. Bytes either decoder still held flow into the relay.
     */
    @Override
    public void switchToRelay(Channel backend, boolean websocket, Duration idleTimeout) {
        exchange = null;
        responseTimer.close();
        releaseLater();
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.replace(this, "relay", new RawRelay(backend));
        // No traffic either way for idleTimeout closes both sides (RawRelay acts on the idle event).
        pipeline.addBefore("relay", "relay-idle", new IdleStateHandler(0, 0, idleTimeout.toNanos(),
                TimeUnit.NANOSECONDS));
        if (pipeline.get(TIMEOUTS_NAME) != null) {
            pipeline.remove(TIMEOUTS_NAME);
        }
        if (pipeline.get(COMPRESSOR_NAME) != null) {
            pipeline.remove(COMPRESSOR_NAME);
        }
        pipeline.remove(CODEC_NAME);
        ChannelPipeline backendPipeline = backend.pipeline();
        backendPipeline.replace("upstream", "relay", new RawRelay(ctx.channel(), websocket));
        backendPipeline.remove("http");
        if (draining) {
            // Upgraded while Usher stops: the relay ends itself like the others (once the backend side is set up).
            ctx.executor().execute(() -> pipeline.fireUserEventTriggered(new DrainEvent()));
        }
    }

    private void releaseLater() {
        Object msg;
        while ((msg = later.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }
}
