package dev.usher.proxy;

import dev.usher.observe.RequestTrace;
import dev.usher.route.Route;
import dev.usher.config.UpstreamAddress;
import dev.usher.upstream.UpstreamConnection;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;

import java.lang.System.Logger.Level;
import java.net.InetAddress;

/**
 * One request proxied to one backend connection and its response back, streamed both ways with backpressure.
 *
 * <p>The request goes through {@link RequestPhase}s ({@link ForwardedRequest} carries it): its head is held back
 * until the end of the client's current read batch (so a request whose first body chunk is malformed is refused with
 * nothing sent to the backend) and until a backend connection is there; then the head goes, then the body. The
 * response goes through {@link ResponsePhase}s ({@link ForwardedResponse} carries it back, re-framed by
 * {@link ResponseFraming}). Whatever ends the exchange, {@link #end} tears it down in one place, by its
 * {@link Ending}: the backend connection goes back to its pool only when both messages were carried in full (or
 * nothing was written to it), so no half-used connection is ever reused. Which backend, and what happens when one
 * fails before answering, is {@link BackendAttempts}'; riding out a site whose backends are all down is
 * {@link BackendWaiter}'s.
 *
 * <p>Threading: confined to the client's event loop (the backend connection lives on the same loop).
 */
final class ProxyExchange implements Exchange, UpstreamListener {
    private static final System.Logger LOG = System.getLogger(ProxyExchange.class.getName());

    private final ClientSide handler;
    private final ChannelHandlerContext ctx;
    private final Route route;
    private final HttpRequest request;
    private final RequestShape shape;
    private final BackendAttempts attempts;
    private final boolean https;
    /** The client side's response timer, which this exchange's backend wait is watched by. */
    private final ResponseTimer responseTimer;
    private final ForwardedRequest forwarded;
    private UpstreamConnection upstream;
    private final ForwardedResponse response;
    /** Null while the exchange is under way. */
    private Ending ending;
    /** Made when the client first stops reading its response; null until then. */
    private WriteStallTimer writeStall;
    /** Made when the request first has to wait for a backend ({@code wait_for_backend:}); null until then. */
    private BackendWaiter waiter;
    private final UpstreamGroup group;

    /** @param group where the request goes: the site's backends, or its auth server for Authentik's outpost path */
    ProxyExchange(ClientSide handler, ChannelHandlerContext ctx, Route route, UpstreamGroup group,
                  HttpRequest request, InetAddress clientAddress, RequestShape shape, RequestTrace trace) {
        this.handler = handler;
        this.ctx = ctx;
        this.route = route;
        this.request = request;
        this.shape = shape;
        this.forwarded = new ForwardedRequest(request);
        this.group = group;
        this.attempts = new BackendAttempts(this, route, group, clientAddress, request, shape, trace);
        this.https = handler.isHttps();
        this.response = new ForwardedResponse(this, handler, ctx, route, request, shape);
        this.responseTimer = handler.responseTimer();
    }

    /** The route the request took (a site's, or one of its paths'). */
    Route route() {
        return route;
    }

    /** How long the client connection may then wait for its next request: the site's keep-alive idle timeout. */
    @Override
    public long keepAliveIdleNanos() {
        return route.site().traffic().keepAliveIdle().toNanos();
    }

    /**
     * Usher is stopping: this response ends the connection. A response head not yet sent says so with
     * {@code Connection: close}; one already sent is simply followed by the close.
     */
    @Override
    public void closeAfterResponse() {
        response.closeClientAfter();
    }

    /** True when a body follows the request head. */
    @Override
    public boolean hasBody() {
        return shape.hasBody();
    }

    /** The site's read timeout: the longest pause allowed while the request body is being read. */
    @Override
    public long readTimeoutNanos() {
        return route.site().traffic().readTimeout().toNanos();
    }

    /** True once the client's whole request (head and body) has arrived. */
    @Override
    public boolean requestReceived() {
        return forwarded.received();
    }

    /** Why the exchange ended, or null while it is under way. */
    Ending ending() {
        return ending;
    }

    /**
     * True when the client connection may already read what follows this request: the request is in, and the
     * connection stays an HTTP/1.1 keep-alive connection (not an upgrade, whose early bytes belong to the tunnel).
     */
    @Override
    public boolean mayReadAhead() {
        return forwarded.received() && shape.keepAlive() && !shape.upgrade() && !response.closesClient() && ending == null;
    }

    /** True while the exchange waits for more of the request body from the client (for its read timeout). */
    @Override
    public boolean waitingOnClient() {
        return !forwarded.received() && forwarded.phase().headSent() && upstream != null
                && upstream.channel().isWritable() && ending == null;
    }

    @Override
    public void start() {
        if (ending != null) {
            return; // the client left while its credentials were being checked
        }
        if (!attempts.pick()) {
            LOG.log(Level.INFO, "{0}: no backend available", route.site().name());
            waitOrFail(HttpResponseStatus.SERVICE_UNAVAILABLE);
            return;
        }
        attempts.connect(ctx.channel().eventLoop(), false);
    }

    /**
     * Every backend is down: with {@code wait_for_backend:} the request tries again a little later, until its wait
     * is over or while the site has room for waiting requests; otherwise (or then) it is answered {@code status}.
     */
    private void waitOrFail(HttpResponseStatus status) {
        if (ending == null && group == route.upstreams() && route.site().traffic().waitForBackend() != null) {
            if (waiter == null) {
                waiter = new BackendWaiter(ctx.executor(), group, route.site().traffic().waitForBackend());
            }
            boolean first = !waiter.waited();
            if (waiter.retryLater(this::tryAgain)) {
                if (first) {
                    LOG.log(Level.DEBUG, "{0}: waiting for a backend to come back", route.site().name());
                }
                return;
            }
            waiter.done();
        }
        fail(status);
    }

    /** The next try of a waiting request: every backend again, on new connections. */
    private void tryAgain() {
        if (ending != null) {
            return;
        }
        attempts.startOver();
        if (!attempts.pick()) {
            waitOrFail(HttpResponseStatus.SERVICE_UNAVAILABLE);
            return;
        }
        attempts.connect(ctx.channel().eventLoop(), true);
    }

    /** True while the request waits for a backend to come back: its failed tries are not worth a log line each. */
    boolean waiting() {
        return waiter != null && waiter.waited();
    }

    /** A connection to the attempt's backend is there (from {@link BackendAttempts#connect}). */
    void connected(UpstreamConnection conn) {
        if (ending != null) {
            conn.release();
            return;
        }
        if (waiter != null) {
            waiter.done();
        }
        upstream = conn;
        conn.attach(this);
        pump();
    }

    /** No backend could be connected to: answered with {@code status} (or waited for). */
    void unreachable(HttpResponseStatus status) {
        waitOrFail(status);
    }

    // ---------------------------------------------------------------- client → backend

    @Override
    public void clientContent(HttpContent content) {
        if (content.decoderResult().isFailure()) {
            content.release();
            fail(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        if (!forwarded.take(content, route.site().maxBody())) {
            content.release();
            fail(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        if (ending != null) {
            content.release();
        } else if (!forwarded.phase().headSent()) {
            forwarded.hold(content);
        } else if (forwarded.write(content, upstream.channel())) {
            armResponseTimer();
        }
    }

    /** End of a client read batch: the head may go now, and more is read if the backend keeps up. */
    @Override
    public void clientReadComplete() {
        forwarded.readComplete();
        pump();
    }

    private void pump() {
        if (upstream != null && ending == null && forwarded.send(upstream.channel())) {
            armResponseTimer();
        }
        readClientIfReady();
    }

    private void readClientIfReady() {
        if (waitingOnClient()) {
            ctx.read();
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
        responseTimer.activity(this);
        if (ending != null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        response.read(msg);
    }

    /** The backend's final answer (or its 101) began: no other backend is tried now, and its silence is timed. */
    void answered() {
        attempts.answered();
        armResponseTimer();
    }

    /** The backend connection the exchange uses now; null between attempts. */
    UpstreamConnection upstream() {
        return upstream;
    }

    /** The backend the current attempt goes to, for log lines. */
    UpstreamAddress backend() {
        return attempts.backend();
    }

    @Override
    public void upstreamReadComplete() {
        ctx.flush();
        if (upstream != null && ctx.channel().isWritable()) {
            upstream.channel().read();
        }
    }

    @Override
    public void clientWritabilityChanged(boolean writable) {
        if (writable) {
            if (writeStall != null) {
                writeStall.writable();
            }
            if (upstream != null && forwarded.phase().headSent()) {
                upstream.channel().read();
            }
        } else if (ending == null) {
            if (writeStall == null) {
                writeStall = new WriteStallTimer(ctx.executor(), route.site().traffic().writeTimeout().toNanos(),
                        this::writeTimedOut);
            }
            writeStall.unwritable();
        }
    }

    private void writeTimedOut() {
        if (ending == null) {
            LOG.log(Level.DEBUG, "{0}: client stopped reading for {1}; closing", route.site().name(),
                    route.site().traffic().writeTimeout());
            cut(Ending.WRITE_TIMEOUT);
        }
    }

    // ---------------------------------------------------------------- endings

    @Override
    public void upstreamClosed(Throwable cause) {
        if (ending != null) {
            return;
        }
        if (cause != null) {
            LOG.log(Level.DEBUG, "{0}: backend {1} failed: {2}", route.site().name(), attempts.backend(), cause);
        }
        boolean reused = upstream != null && upstream.reused();
        upstream = null;
        if (response.phase().started()) {
            cut(Ending.BACKEND_FAILED);
            return;
        }
        if (response.phase() == ResponsePhase.REPLACING) {
            fail(HttpResponseStatus.BAD_GATEWAY); // it had answered: nothing to try again
            return;
        }
        boolean sentBodiless = forwarded.phase() == RequestPhase.SENT && forwarded.bodiless();
        switch (attempts.closedBeforeAnswer(reused, sentBodiless)) {
            case SAME_BACKEND -> resend(true);
            case ELSEWHERE -> resend(false);
            case NONE -> {
                if (attempts.mayResend(sentBodiless)) {
                    forwarded.again(); // a backend going down under it: the request may wait for its return
                    waitOrFail(HttpResponseStatus.BAD_GATEWAY);
                } else if (!forwarded.phase().headSent()) {
                    waitOrFail(HttpResponseStatus.BAD_GATEWAY);
                } else {
                    fail(HttpResponseStatus.BAD_GATEWAY);
                }
            }
        }
    }

    /** Sends the (bodiless) request again, on a new connection ({@code fresh}) or one from the current pool. */
    private void resend(boolean fresh) {
        stopResponseTimer();
        forwarded.again();
        attempts.connect(ctx.channel().eventLoop(), fresh);
    }

    /** The backend's answer cannot be carried: a 502 before any of it went out, a cut client side after. */
    void upstreamFailed() {
        if (response.phase().started()) {
            // Part of the response is already with the client: cutting the connection is the only honest signal.
            cut(Ending.BACKEND_FAILED);
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY);
        }
    }

    /** Ends the exchange with a local error page (before any response byte went out). */
    private void fail(HttpResponseStatus status) {
        if (ending != null) {
            return;
        }
        if (response.phase().started()) {
            // An answer is already streaming (a backend that responds before the body is in): an error page now
            // would be spliced into it. Cutting the connection is the only honest signal left.
            cut(Ending.REQUEST_FAILED);
            return;
        }
        end(Ending.LOCAL_ANSWER);
        boolean close = !forwarded.received() || !shape.keepAlive() || status.code() == 400;
        FullHttpResponse page = ErrorPages.response(status, close, route.site().traffic().errorPages());
        route.rules().editResponse(page.headers(), https);
        handler.respond(page, close);
        handler.exchangeDone(this, close);
    }

    /** Ends the exchange before it started, with a local answer from the site's rules (e.g. a 401). */
    @Override
    public void reject(FullHttpResponse answer) {
        if (ending != null) {
            answer.release();
            return;
        }
        end(Ending.REJECTED);
        boolean close = !forwarded.received() || !shape.keepAlive();
        handler.respond(answer, close);
        handler.exchangeDone(this, close);
    }

    /**
     * The request body stopped arriving for the read timeout (HTTP/2; HTTP/1.1 closes the connection instead): a 408
     * while no response has begun, a cut client side otherwise. Either way the backend connection, which holds half
     * a request, is closed.
     */
    @Override
    public void clientStalled() {
        LOG.log(Level.DEBUG, "{0}: request body stalled for {1}", route.site().name(),
                route.site().traffic().readTimeout());
        fail(HttpResponseStatus.REQUEST_TIMEOUT);
    }

    /** The client went away: whatever the backend connection is in the middle of, it cannot be reused. */
    @Override
    public void clientClosed() {
        if (ending == null) {
            end(Ending.CLIENT_GONE);
        }
    }

    /** Ends the exchange for {@code why} and cuts the client side, with no answer. */
    private void cut(Ending why) {
        end(why);
        handler.abortConnection();
    }

    /**
     * Ends the exchange for {@code why}, with every cleanup in this one place: timers off, body pieces held back
     * released, the attempt's in-flight count ended, and the backend connection settled as the reason dictates.
     * What the client gets (the last piece, an error page, a 101, a cut) is the caller's to send, after this.
     */
    void end(Ending why) {
        ending = why;
        stopResponseTimer();
        if (writeStall != null) {
            writeStall.cancel();
        }
        forwarded.discard();
        attempts.end();
        if (waiter != null) {
            waiter.done();
        }
        UpstreamConnection conn = upstream;
        upstream = null;
        if (conn == null) {
            return;
        }
        switch (why) {
            // Reused only when both messages were carried in full.
            case COMPLETED -> settle(conn, response.backendReusable() && forwarded.phase() == RequestPhase.SENT);
            // Given back when nothing was written to it; otherwise it may hold half an exchange.
            case LOCAL_ANSWER, REJECTED, CLIENT_GONE -> settle(conn, !forwarded.phase().headSent());
            case BACKEND_FAILED, REQUEST_FAILED, WRITE_TIMEOUT -> conn.close();
            case UPGRADED -> { } // the relay owns it now
        }
    }

    private static void settle(UpstreamConnection conn, boolean reusable) {
        if (reusable) {
            conn.release();
        } else {
            conn.close();
        }
    }

    // ---------------------------------------------------------------- response timeout

    /** From now on the backend may stay silent for the response timeout; called again, it counts as activity. */
    private void armResponseTimer() {
        responseTimer.watch(this, route.site().responseTimeout().toNanos());
    }

    private void stopResponseTimer() {
        responseTimer.stop(this);
    }

    /**
     * Called by the response timer: the backend has been silent for the response timeout. The exchange ends with a
     * 504, or a cut connection mid-response.
     */
    void responseTimedOut() {
        if (ending != null) {
            return;
        }
        LOG.log(Level.INFO, "{0}: backend {1} did not answer within {2}", route.site().name(), attempts.backend(),
                route.site().responseTimeout());
        if (response.phase().started()) {
            cut(Ending.BACKEND_FAILED);
        } else {
            attempts.timedOut();
            fail(HttpResponseStatus.GATEWAY_TIMEOUT);
        }
    }
}
