package dev.usher.proxy;

import dev.usher.route.Route;
import dev.usher.upstream.UpstreamConnection;
import dev.usher.upstream.UpstreamListener;
import dev.usher.upstream.UpstreamPool;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;

import java.lang.System.Logger.Level;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One request proxied to one backend connection and its response back, streamed both ways with backpressure.
 *
 * <p>The request head is held back until the end of the client's current read batch (or until the backend is
 * connected), so a request whose first body chunk is malformed is refused with nothing sent to the backend. The
 * backend connection goes back to its pool only when both messages were carried in full; any other ending closes it,
 * so no half-used connection is ever reused.
 *
 * <p>Threading: confined to the client's event loop (the backend connection lives on the same loop).
 */
final class ProxyExchange implements UpstreamListener {
    private static final System.Logger LOG = System.getLogger(ProxyExchange.class.getName());

    private final Http1ProxyHandler client;
    private final ChannelHandlerContext ctx;
    private final Route route;
    private final HttpRequest request;
    private final boolean clientKeepAlive;
    private final boolean http10Client;
    private final boolean upgradeRequested;
    private final boolean replayable;
    private final boolean headRequest;
    private final long maxBody;
    private final long responseTimeoutNanos;

    /** Body pieces received from the client and not yet written to the backend. */
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
    private UpstreamPool pool;
    private UpstreamConnection upstream;
    private long bodyBytes;
    private boolean headReleased;
    private boolean headSent;
    private boolean requestReceived;
    private boolean requestSent;
    private boolean responseStarted;
    private boolean responseComplete;
    private boolean skipInformationalEnd;
    private boolean upstreamKeepAlive = true;
    private boolean closeClientAfter;
    private boolean finished;
    private boolean retried;
    private ScheduledFuture<?> timer;
    private long lastUpstreamActivity;

    ProxyExchange(Http1ProxyHandler client, ChannelHandlerContext ctx, Route route, HttpRequest request,
                  boolean clientKeepAlive, boolean http10Client, boolean upgradeRequested, boolean hasBody) {
        this.client = client;
        this.ctx = ctx;
        this.route = route;
        this.request = request;
        this.clientKeepAlive = clientKeepAlive;
        this.http10Client = http10Client;
        this.upgradeRequested = upgradeRequested;
        this.headRequest = request.method().equals(HttpMethod.HEAD);
        this.replayable = !hasBody && isIdempotent(request);
        this.maxBody = route.site().maxBody();
        this.responseTimeoutNanos = route.site().responseTimeout().toNanos();
    }

    /** True once the client's whole request (head and body) has arrived. */
    boolean requestReceived() {
        return requestReceived;
    }

    void start() {
        pool = route.upstreams().pick();
        acquire(false);
    }

    private void acquire(boolean fresh) {
        Future<UpstreamConnection> f = pool.acquire(ctx.channel().eventLoop(), route.site().connectTimeout(), fresh);
        if (f.isDone()) {
            connected(f);
        } else {
            f.addListener(this::connected);
        }
    }

    private void connected(Future<? super UpstreamConnection> f) {
        if (!f.isSuccess()) {
            if (!finished) {
                Throwable cause = f.cause();
                LOG.log(Level.INFO, "{0}: cannot connect to backend {1}: {2}", route.site().name(),
                        pool.address(), cause);
                fail(cause instanceof ConnectTimeoutException
                        ? HttpResponseStatus.GATEWAY_TIMEOUT : HttpResponseStatus.BAD_GATEWAY);
            }
            return;
        }
        UpstreamConnection conn = (UpstreamConnection) f.getNow();
        if (finished) {
            conn.release();
            return;
        }
        upstream = conn;
        conn.attach(this);
        pump();
    }

    // ---------------------------------------------------------------- client → backend

    void clientContent(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            content.release();
            fail(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        bodyBytes += content.content().readableBytes();
        if (maxBody > 0 && bodyBytes > maxBody) {
            content.release();
            fail(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        if (content instanceof LastHttpContent) {
            requestReceived = true;
        }
        if (responseComplete || finished) {
            content.release();
            return;
        }
        if (headSent) {
            writeUpstream(content);
        } else {
            pending.add(content);
        }
    }

    /** End of a client read batch: the head may go now, and more is read if the backend keeps up. */
    void clientReadComplete() {
        headReleased = true;
        pump();
    }

    private void readClientIfReady() {
        if (!requestReceived && headSent && upstream != null && upstream.channel().isWritable() && !finished) {
            ctx.read();
        }
    }

    private void pump() {
        if (upstream == null || !headReleased || finished) {
            return;
        }
        Channel backend = upstream.channel();
        if (!headSent) {
            headSent = true;
            backend.write(request, backend.voidPromise());
            backend.read();
        }
        HttpContent content;
        while ((content = pending.poll()) != null) {
            writeUpstream(content);
        }
        backend.flush();
        readClientIfReady();
    }

    private void writeUpstream(HttpContent content) {
        Channel backend = upstream.channel();
        boolean last = content instanceof LastHttpContent;
        backend.write(content, backend.voidPromise());
        if (last) {
            requestSent = true;
            backend.flush();
            armTimer();
        }
    }

    @Override
    public void upstreamWritabilityChanged(boolean writable) {
        if (writable) {
            readClientIfReady();
        }
    }

    // ---------------------------------------------------------------- backend → client

    @Override
    public void upstreamRead(Object msg) {
        lastUpstreamActivity = System.nanoTime();
        if (finished) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            LOG.log(Level.INFO, "{0}: invalid response from backend {1}: {2}", route.site().name(),
                    pool.address(), http.decoderResult().cause());
            upstreamFailed();
            return;
        }
        if (msg instanceof HttpResponse response) {
            responseHead(response);
        }
        if (msg instanceof HttpContent content) {
            responseContent(content);
        } else if (!(msg instanceof HttpResponse)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void responseHead(HttpResponse response) {
        int code = response.status().code();
        if (code == 101 && upgradeRequested && clientKeepAlive) {
            switchProtocols(response);
            return;
        }
        if (code >= 100 && code < 200) {
            // 100 Continue and friends: pass the head on, drop its end marker, keep waiting for the final answer.
            if (code == 101) {
                upstreamFailed();
                return;
            }
            HttpHeaders headers = response.headers();
            HopByHop.strip(headers);
            ctx.write(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, response.status(), Unpooled.EMPTY_BUFFER,
                    headers, HttpHeaders.EMPTY_HEADERS.copy()));
            skipInformationalEnd = true;
            return;
        }
        responseStarted = true;
        armTimer();
        HttpHeaders headers = response.headers();
        upstreamKeepAlive = HttpUtil.isKeepAlive(response);
        boolean chunked = HttpUtil.isTransferEncodingChunked(response);
        HopByHop.strip(headers);
        boolean bodyless = headRequest || code == 204 || code == 304;
        if (!bodyless && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            if (!chunked) {
                upstreamKeepAlive = false; // the backend ends this body by closing the connection
            }
            if (http10Client) {
                closeClientAfter = true;
            } else {
                headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
        } else if (chunked && headRequest && !http10Client) {
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (!clientKeepAlive) {
            closeClientAfter = true;
        }
        if (closeClientAfter) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10Client) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        response.setProtocolVersion(HttpVersion.HTTP_1_1);
        ctx.write(response, ctx.voidPromise());
    }

    private void responseContent(HttpContent content) {
        if (skipInformationalEnd && content instanceof LastHttpContent) {
            skipInformationalEnd = false;
            content.release();
            return;
        }
        if (!(content instanceof LastHttpContent)) {
            ctx.write(content, ctx.voidPromise());
            return;
        }
        responseComplete = true;
        cancelTimer();
        // A backend may answer before the request body is in (an early error, or an echo that streams): the rest
        // of the body is not worth reading, so the connection ends with this response.
        boolean close = closeClientAfter || !requestReceived;
        // Flush here: once the connection is back in its pool, this exchange hears no more read-complete events.
        if (close) {
            ctx.writeAndFlush(content).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(content, ctx.voidPromise());
        }
        finished = true;
        UpstreamConnection conn = upstream;
        upstream = null;
        if (upstreamKeepAlive && requestSent) {
            conn.release();
        } else {
            conn.close();
        }
        releasePending();
        client.exchangeDone(this, close);
    }

    @Override
    public void upstreamReadComplete() {
        ctx.flush();
        if (upstream != null && !responseComplete && ctx.channel().isWritable()) {
            upstream.channel().read();
        }
    }

    void clientWritabilityChanged(boolean writable) {
        if (writable && upstream != null && headSent && !responseComplete) {
            upstream.channel().read();
        }
    }

    /** A 101 answer to an upgrade request: both connections become a raw relay of bytes. */
    private void switchProtocols(HttpResponse response) {
        responseStarted = true;
        finished = true;
        cancelTimer();
        HttpHeaders headers = response.headers();
        CharSequence protocol = headers.get(HttpHeaderNames.UPGRADE);
        HopByHop.strip(headers);
        if (protocol != null) {
            headers.set(HttpHeaderNames.UPGRADE, protocol);
        }
        headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        ctx.writeAndFlush(response, ctx.voidPromise());
        Channel backend = upstream.channel();
        upstream = null;
        releasePending();
        Channel clientChannel = ctx.channel();
        client.switchToRelay(backend);
        ChannelPipeline backendPipeline = backend.pipeline();
        backendPipeline.replace("upstream", "relay", new RawRelay(clientChannel));
        backendPipeline.remove("http");
    }

    // ---------------------------------------------------------------- endings

    @Override
    public void upstreamClosed(Throwable cause) {
        if (finished) {
            return;
        }
        if (cause != null) {
            LOG.log(Level.DEBUG, "{0}: backend {1} failed: {2}", route.site().name(), pool.address(), cause);
        }
        boolean wasReused = upstream != null && upstream.reused();
        upstream = null;
        if (!responseStarted && wasReused && replayable && !retried && headSent && requestSent) {
            // A kept-alive connection the backend had just closed: nothing was processed, so send it again once,
            // on a new connection. Only for bodiless idempotent requests, as Go's and nginx's proxies do.
            retried = true;
            headSent = false;
            requestSent = false;
            pending.add(LastHttpContent.EMPTY_LAST_CONTENT);
            cancelTimer();
            acquire(true);
            return;
        }
        upstreamFailed();
    }

    private void upstreamFailed() {
        if (responseStarted) {
            // Part of the response is already with the client: cutting the connection is the only honest signal.
            finished = true;
            closeUpstream();
            releasePending();
            cancelTimer();
            client.abortConnection();
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY);
        }
    }

    /** Ends the exchange with a local error page (before any response byte went out). */
    private void fail(HttpResponseStatus status) {
        if (finished) {
            return;
        }
        finished = true;
        cancelTimer();
        releasePending();
        if (upstream != null) {
            if (!headSent) {
                upstream.release();
            } else {
                closeUpstream();
            }
            upstream = null;
        }
        boolean close = !requestReceived || !clientKeepAlive || status.code() == 400;
        client.respond(status, close);
        client.exchangeDone(this, close);
    }

    /** The client went away: whatever the backend connection is in the middle of, it cannot be reused. */
    void clientClosed() {
        if (finished) {
            return;
        }
        finished = true;
        cancelTimer();
        releasePending();
        if (upstream != null) {
            if (!headSent) {
                upstream.release();
            } else {
                closeUpstream();
            }
            upstream = null;
        }
    }

    private void closeUpstream() {
        if (upstream != null) {
            upstream.close();
            upstream = null;
        }
    }

    private void releasePending() {
        HttpContent content;
        while ((content = pending.poll()) != null) {
            content.release();
        }
    }

    // ---------------------------------------------------------------- response timeout

    private void armTimer() {
        lastUpstreamActivity = System.nanoTime();
        if (timer == null) {
            timer = ctx.executor().schedule(this::checkTimer, responseTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void checkTimer() {
        timer = null;
        if (finished) {
            return;
        }
        long left = lastUpstreamActivity + responseTimeoutNanos - System.nanoTime();
        if (left > 0) {
            timer = ctx.executor().schedule(this::checkTimer, left, TimeUnit.NANOSECONDS);
            return;
        }
        LOG.log(Level.INFO, "{0}: backend {1} did not answer within {2}", route.site().name(), pool.address(),
                route.site().responseTimeout());
        if (responseStarted) {
            upstreamFailed();
        } else {
            closeUpstream();
            fail(HttpResponseStatus.GATEWAY_TIMEOUT);
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private static boolean isIdempotent(HttpRequest request) {
        HttpMethod m = request.method();
        return m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.OPTIONS)
                || m.equals(HttpMethod.TRACE) || m.equals(HttpMethod.PUT) || m.equals(HttpMethod.DELETE)
                || request.headers().contains("idempotency-key");
    }
}
