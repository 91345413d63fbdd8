package dev.usher.proxy;

import dev.usher.observe.RequestTrace;
import dev.usher.route.Route;
import dev.usher.upstream.UpstreamConnection;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamListener;
import dev.usher.upstream.UpstreamPool;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
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
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
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

    private final ClientSide handler;
    private final boolean hasBody;
    private final RequestShape shape;
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
    private final long writeTimeoutNanos;
    private final InetAddress client;
    private final UpstreamGroup group;
    private final boolean https;
    /** Where the backend and its response time are noted for the access log and metrics, or null. */
    private final RequestTrace trace;

    /** Body pieces received from the client and not yet written to the backend. */
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
    private UpstreamPool pool;
    /** The backend whose in-flight count this exchange holds, or null. */
    private UpstreamPool counted;
    /** Backends that already failed for this request; null until one does. */
    private List<UpstreamPool> tried;
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
    /** The client side's response timer, which this exchange's backend wait is watched by. */
    private final ResponseTimer responseTimer;
    private boolean timerArmed;
    private long lastUpstreamActivity;
    private ScheduledFuture<?> writeTimer;
    private long unwritableSince;

    ProxyExchange(ClientSide handler, ChannelHandlerContext ctx, Route route, HttpRequest request,
                  InetAddress clientAddress, RequestShape shape, RequestTrace trace) {
        this.handler = handler;
        this.ctx = ctx;
        this.route = route;
        this.request = request;
        this.shape = shape;
        this.clientKeepAlive = shape.keepAlive();
        this.http10Client = shape.http10();
        this.upgradeRequested = shape.upgrade();
        this.headRequest = request.method().equals(HttpMethod.HEAD);
        this.hasBody = shape.hasBody();
        this.replayable = !hasBody && isIdempotent(request);
        this.maxBody = route.site().maxBody();
        this.responseTimeoutNanos = route.site().responseTimeout().toNanos();
        this.writeTimeoutNanos = route.site().traffic().writeTimeout().toNanos();
        this.client = clientAddress;
        this.group = route.upstreams();
        this.https = handler.isHttps();
        this.trace = trace;
        this.responseTimer = handler.responseTimer();
    }

    /** How long the client connection may then wait for its next request: the site's keep-alive idle timeout. */
    long keepAliveIdleNanos() {
        return route.site().traffic().keepAliveIdle().toNanos();
    }

    /**
     * Usher is stopping: this response ends the connection. A response head not yet sent says so with
     * {@code Connection: close}; one already sent is simply followed by the close.
     */
    void closeAfterResponse() {
        closeClientAfter = true;
    }

    /** True when a body follows the request head. */
    boolean hasBody() {
        return hasBody;
    }

    /** The site's read timeout: the longest pause allowed while the request body is being read. */
    long readTimeoutNanos() {
        return route.site().traffic().readTimeout().toNanos();
    }

    /** True once the client's whole request (head and body) has arrived. */
    boolean requestReceived() {
        return requestReceived;
    }

    /**
     * True when the client connection may already read what follows this request: the request is in, and the
     * connection stays an HTTP/1.1 keep-alive connection (not an upgrade, whose early bytes belong to the tunnel).
     */
    boolean mayReadAhead() {
        return requestReceived && clientKeepAlive && !upgradeRequested && !closeClientAfter && !finished;
    }

    /** True while the exchange waits for more of the request body from the client (for its read timeout). */
    boolean waitingOnClient() {
        return !requestReceived && headSent && upstream != null && upstream.channel().isWritable() && !finished;
    }

    void start() {
        if (finished) {
            return; // the client left while its credentials were being checked
        }
        if (!pickBackend()) {
            LOG.log(Level.INFO, "{0}: no backend available", route.site().name());
            fail(HttpResponseStatus.SERVICE_UNAVAILABLE);
            return;
        }
        acquire(false);
    }

    /** Chooses the backend for the next attempt; false when every backend is down or was tried already. */
    private boolean pickBackend() {
        UpstreamPool next = group.pick(client, tried == null ? List.of() : tried);
        if (next == null) {
            return false;
        }
        pool = next;
        counted = next;
        if (trace != null) {
            trace.upstream(next.address());
        }
        group.requestStarted(next);
        return true;
    }

    /** Ends the in-flight count of the current attempt (for least_conn), once. */
    private void endCount() {
        if (counted != null) {
            group.requestEnded(counted);
            counted = null;
        }
    }

    /** This attempt's backend failed before answering: count it, and move on to another backend when allowed. */
    private boolean retryElsewhere() {
        group.failed(pool);
        endCount();
        if (tried == null) {
            tried = new ArrayList<>(2);
        }
        tried.add(pool);
        UpstreamPool failedPool = pool;
        if (!pickBackend()) {
            pool = failedPool; // keep a pool for the log lines that follow
            return false;
        }
        return true;
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
                // Nothing was sent: another backend can always take the request.
                if (retryElsewhere()) {
                    acquire(false);
                    return;
                }
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
        switch (ResponseFraming.kind(response, shape)) {
            case SWITCH -> switchProtocols(response);
            case INVALID -> upstreamFailed();
            case INTERIM -> {
                // 100 Continue and friends: pass the head on, drop its end marker, keep waiting for the final answer.
                skipInformationalEnd = true;
                FullHttpResponse interim = ResponseFraming.interimHead(response, shape);
                if (interim != null) {
                    ctx.write(interim);
                }
            }
            case FINAL -> {
                responseStarted = true;
                group.succeeded(pool);
                if (trace != null) {
                    trace.upstreamAnswered();
                }
                armTimer();
                upstream.keepAliveTimeout(response.headers().get(HttpHeaderNames.KEEP_ALIVE));
                ResponseFraming.Afterwards afterwards = ResponseFraming.finalHead(response, request.method(), shape,
                        closeClientAfter);
                upstreamKeepAlive = afterwards.backendReusable();
                closeClientAfter = !afterwards.clientStaysOpen();
                route.rules().editResponse(response.headers(), https);
                ctx.write(response, ctx.voidPromise());
            }
        }
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
        cancelWriteTimer();
        endCount();
        UpstreamConnection conn = upstream;
        upstream = null;
        if (upstreamKeepAlive && requestSent) {
            conn.release();
        } else {
            conn.close();
        }
        releasePending();
        handler.exchangeDone(this, close);
    }

    @Override
    public void upstreamReadComplete() {
        ctx.flush();
        if (upstream != null && !responseComplete && ctx.channel().isWritable()) {
            upstream.channel().read();
        }
    }

    void clientWritabilityChanged(boolean writable) {
        if (writable) {
            unwritableSince = 0;
            if (upstream != null && headSent && !responseComplete) {
                upstream.channel().read();
            }
        } else if (!finished) {
            unwritableSince = System.nanoTime();
            if (writeTimer == null) {
                writeTimer = ctx.executor().schedule(this::checkWriteTimer, writeTimeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /** A client that stops reading holds a backend connection: after the write timeout both are let go. */
    private void checkWriteTimer() {
        writeTimer = null;
        if (finished || unwritableSince == 0) {
            return;
        }
        long left = unwritableSince + writeTimeoutNanos - System.nanoTime();
        if (left > 0) {
            writeTimer = ctx.executor().schedule(this::checkWriteTimer, left, TimeUnit.NANOSECONDS);
            return;
        }
        LOG.log(Level.DEBUG, "{0}: client stopped reading for {1}; closing", route.site().name(),
                route.site().traffic().writeTimeout());
        finished = true;
        closeUpstream();
        releasePending();
        cancelTimer();
        endCount();
        handler.abortConnection();
    }

    private void cancelWriteTimer() {
        if (writeTimer != null) {
            writeTimer.cancel(false);
            writeTimer = null;
        }
    }

    /** A 101 answer to an upgrade request: both connections become a raw relay of bytes. */
    private void switchProtocols(HttpResponse response) {
        responseStarted = true;
        if (trace != null) {
            trace.upstreamAnswered();
        }
        finished = true;
        cancelTimer();
        cancelWriteTimer();
        group.succeeded(pool);
        endCount();
        boolean websocket = ResponseFraming.switchHead(response);
        route.rules().editResponse(response.headers(), https);
        ctx.writeAndFlush(response, ctx.voidPromise());
        Channel backend = upstream.channel();
        upstream = null;
        releasePending();
        Channel clientChannel = ctx.channel();
        handler.switchToRelay(backend, route.site().traffic().websocketIdle());
        ChannelPipeline backendPipeline = backend.pipeline();
        backendPipeline.replace("upstream", "relay", new RawRelay(clientChannel, websocket));
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
        if (!responseStarted && replayable && headSent && requestSent) {
            cancelTimer();
            if (wasReused && !retried) {
                // A kept-alive connection the backend had just closed: nothing was processed, so send it again
                // once, on a new connection to the same backend. Only for bodiless idempotent requests, as Go's
                // and nginx's proxies do.
                retried = true;
                resend(true);
                return;
            }
            // A fresh connection failed before any answer: the backend is in trouble; another may serve.
            LOG.log(Level.INFO, "{0}: backend {1} closed the connection before answering", route.site().name(),
                    pool.address());
            if (retryElsewhere()) {
                resend(false);
                return;
            }
        } else if (!responseStarted && !wasReused) {
            // A reused connection closing under a request says little about the backend (its keep-alive timer
            // may simply have run out): only a fresh one counts against its health.
            group.failed(pool);
        }
        upstreamFailed();
    }

    /** Sends the (bodiless) request again, on a new connection ({@code fresh}) or one from the current pool. */
    private void resend(boolean fresh) {
        headSent = false;
        requestSent = false;
        pending.add(LastHttpContent.EMPTY_LAST_CONTENT);
        acquire(fresh);
    }

    private void upstreamFailed() {
        if (responseStarted) {
            // Part of the response is already with the client: cutting the connection is the only honest signal.
            finished = true;
            closeUpstream();
            releasePending();
            cancelTimer();
            cancelWriteTimer();
            endCount();
            handler.abortConnection();
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY);
        }
    }

    /** Ends the exchange with a local error page (before any response byte went out). */
    private void fail(HttpResponseStatus status) {
        if (finished) {
            return;
        }
        if (responseStarted) {
            // An answer is already streaming (a backend that responds before the body is in): an error page now
            // would be spliced into it. Cutting the connection is the only honest signal left.
            upstreamFailed();
            return;
        }
        abandon();
        boolean close = !requestReceived || !clientKeepAlive || status.code() == 400;
        FullHttpResponse page = ErrorPages.response(status, close);
        route.rules().editResponse(page.headers(), https);
        handler.respond(page, close);
        handler.exchangeDone(this, close);
    }

    /** Ends the exchange before it started, with a local answer from the site's rules (e.g. a 401). */
    void reject(FullHttpResponse answer) {
        if (finished) {
            answer.release();
            return;
        }
        finished = true;
        releasePending();
        boolean close = !requestReceived || !clientKeepAlive;
        handler.respond(answer, close);
        handler.exchangeDone(this, close);
    }

    /**
     * The request body stopped arriving for the read timeout (HTTP/2; HTTP/1.1 closes the connection instead): a 408
     * while no response has begun, a cut client side otherwise. Either way the backend connection, which holds half
     * a request, is closed.
     */
    void clientStalled() {
        LOG.log(Level.DEBUG, "{0}: request body stalled for {1}", route.site().name(),
                route.site().traffic().readTimeout());
        fail(HttpResponseStatus.REQUEST_TIMEOUT);
    }

    /** The client went away: whatever the backend connection is in the middle of, it cannot be reused. */
    void clientClosed() {
        if (finished) {
            return;
        }
        abandon();
    }

    /**
     * Ends the exchange without a response from the backend: timers off, pending body released, and the backend
     * connection given back when nothing was written to it, closed otherwise (it may hold half an exchange).
     */
    private void abandon() {
        finished = true;
        cancelTimer();
        cancelWriteTimer();
        releasePending();
        endCount();
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
        if (!timerArmed) {
            timerArmed = true;
            responseTimer.watch(this, lastUpstreamActivity + responseTimeoutNanos);
        }
    }

    /**
     * Called by the response timer: how much longer the backend may stay silent, in nanoseconds, or 0 when it has
     * been silent for the response timeout (the exchange then ends with a 504, or a cut connection mid-response).
     */
    long responseTimeLeft() {
        if (finished || !timerArmed) {
            return 0;
        }
        long left = lastUpstreamActivity + responseTimeoutNanos - System.nanoTime();
        if (left > 0) {
            return left;
        }
        cancelTimer();
        LOG.log(Level.INFO, "{0}: backend {1} did not answer within {2}", route.site().name(), pool.address(),
                route.site().responseTimeout());
        if (responseStarted) {
            upstreamFailed();
        } else {
            group.failed(pool);
            closeUpstream();
            fail(HttpResponseStatus.GATEWAY_TIMEOUT);
        }
        return 0;
    }

    private void cancelTimer() {
        if (timerArmed) {
            timerArmed = false;
            responseTimer.stop(this);
        }
    }

    private static boolean isIdempotent(HttpRequest request) {
        HttpMethod m = request.method();
        return m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.OPTIONS)
                || m.equals(HttpMethod.TRACE) || m.equals(HttpMethod.PUT) || m.equals(HttpMethod.DELETE)
                || request.headers().contains("idempotency-key");
    }
}
