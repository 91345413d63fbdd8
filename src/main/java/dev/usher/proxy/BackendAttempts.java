package dev.usher.proxy;

import dev.usher.config.UpstreamAddress;
import dev.usher.observe.RequestTrace;
import dev.usher.route.Route;
import dev.usher.upstream.UpstreamConnection;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPool;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.Future;

import javax.net.ssl.SSLException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The backends one request is tried on, attempt by attempt. Each attempt's backend is picked through the site's
 * {@link UpstreamGroup} (skipping those that already failed this request); the attempt holds that backend's
 * in-flight count (what least_conn balances by) until it ends; answers and failures go to passive health. When a
 * backend fails before answering, this decides what follows: another backend, the same one on a new connection (the
 * one resend, when a kept-alive connection turned out closed), or nothing more.
 *
 * <p>Threading: the client's event loop, like the exchange it serves.
 */
final class BackendAttempts {
    private static final System.Logger LOG = System.getLogger(BackendAttempts.class.getName());

    /** What follows when the backend closed the connection before answering. */
    enum Retry {
        /** The request goes again to the same backend, on a new connection. */
        SAME_BACKEND,
        /** The request goes again, to the backend now picked. */
        ELSEWHERE,
        /** Nothing more to try. */
        NONE
    }

    private final ProxyExchange exchange;
    private final Route route;
    private final UpstreamGroup group;
    private final InetAddress client;
    /** Where the backend and its answer are noted for the access log and metrics, or null. */
    private final RequestTrace trace;
    /**
     * An idempotent request: safe to send again when a backend closed without answering, once it went in full with
     * no body (whether or not its client announced one: an HTTP/2 or HTTP/3 GET may end its stream in a frame of its
     * own).
     */
    private final boolean idempotent;
    /** The request asks to upgrade (a websocket): it needs an HTTP/1.1 connection, even to an h2-capable backend. */
    private final boolean upgrade;
    /** The current attempt's backend (after the last attempt failed, still that one, for log lines). */
    private UpstreamPool pool;
    /** The current attempt holds an in-flight count of {@link #pool}. */
    private boolean counted;
    /** Backends that already failed for this request; null until one does. */
    private List<UpstreamPool> tried;
    private boolean resent;

    /** @param exchange told of each connection, or that none could be had */
    BackendAttempts(ProxyExchange exchange, Route route, InetAddress client, HttpRequest request, RequestShape shape,
                    RequestTrace trace) {
        this(exchange, route, route.upstreams(), client, request, shape, trace);
    }

    /** @param group the backends tried: the site's, or its auth server for the outpost path */
    BackendAttempts(ProxyExchange exchange, Route route, UpstreamGroup group, InetAddress client,
                    HttpRequest request, RequestShape shape, RequestTrace trace) {
        this.exchange = exchange;
        this.route = route;
        this.group = group;
        this.client = client;
        this.trace = trace;
        this.idempotent = isIdempotent(request);
        this.upgrade = shape.upgrade();
    }

    /** Starts an attempt on the next backend; false when every backend is down or was tried already. */
    boolean pick() {
        UpstreamPool next = group.pick(client, tried == null ? List.of() : tried);
        if (next == null) {
            return false;
        }
        pool = next;
        counted = true;
        if (trace != null) {
            trace.upstream(next.address());
        }
        group.requestStarted(next);
        return true;
    }

    /** The current attempt's backend, for log lines. */
    UpstreamAddress backend() {
        return pool.address();
    }

    /**
     * Gets the exchange a connection to the current attempt's backend: from its pool on {@code loop} or, when
     * {@code fresh}, a new one. While connecting fails, the request moves on to the next backend (nothing was sent,
     * so another can always take it); when none is left, the exchange answers 504 after a connect timeout, else 502.
     */
    void connect(EventLoop loop, boolean fresh) {
        Future<UpstreamConnection> f = pool.acquire(loop, route.site().connectTimeout(), fresh, upgrade);
        if (f.isDone()) {
            connected(f, loop);
        } else {
            f.addListener(done -> connected(f, loop));
        }
    }

    private void connected(Future<UpstreamConnection> f, EventLoop loop) {
        if (f.isSuccess()) {
            exchange.connected(f.getNow());
            return;
        }
        if (exchange.ending() != null) {
            return; // the client left meanwhile: nothing to report
        }
        Throwable cause = f.cause();
        LOG.log(exchange.waiting() ? Level.DEBUG : Level.INFO, "{0}: cannot connect to backend {1}: {2}",
                route.site().name(), pool.address(), cause instanceof SSLException ? cause.getMessage() : cause);
        if (tryAnother()) {
            connect(loop, false);
        } else {
            exchange.unreachable(cause instanceof ConnectTimeoutException
                    ? HttpResponseStatus.GATEWAY_TIMEOUT : HttpResponseStatus.BAD_GATEWAY);
        }
    }

    /** The backend answered (whatever the status: a backend that answers is up). */
    void answered() {
        group.succeeded(pool);
        if (trace != null) {
            trace.upstreamAnswered();
        }
    }

    /** The backend did not answer within the response timeout. */
    void timedOut() {
        group.failed(pool);
    }

    /**
     * The backend closed the connection before any answer. A bodiless idempotent request sent in full goes again:
     * once to the same backend on a new connection when the closed one was a kept-alive connection (its idle timer
     * may just have run out; nothing was processed, as Go's and nginx's proxies assume), else to another backend.
     * Only a fresh connection closing counts against the backend's health.
     *
     * @param reused       the closed connection had carried earlier requests
     * @param sentBodiless the whole request had been written to it, and it had no body
     */
    Retry closedBeforeAnswer(boolean reused, boolean sentBodiless) {
        if (mayResend(sentBodiless)) {
            if (reused && !resent) {
                resent = true;
                return Retry.SAME_BACKEND;
            }
            LOG.log(Level.INFO, "{0}: backend {1} closed the connection before answering", route.site().name(),
                    pool.address());
            return tryAnother() ? Retry.ELSEWHERE : Retry.NONE;
        }
        if (!reused) {
            group.failed(pool);
        }
        return Retry.NONE;
    }

    /**
     * True when the request may go to a backend again after one failed it: an idempotent one that went in full
     * ({@code sentBodiless}) with no body.
     */
    boolean mayResend(boolean sentBodiless) {
        return idempotent && sentBodiless;
    }

    /**
     * Forgets which backends failed this request, so that all of them may be tried again (a request waiting for
     * its site's backends to come back).
     */
    void startOver() {
        end();
        tried = null;
    }

    /** The attempt is over, whatever its outcome: its in-flight count ends (once). */
    void end() {
        if (counted) {
            counted = false;
            group.requestEnded(pool);
        }
    }

    /** This attempt's backend failed before answering: counted against it, and the next backend picked if any. */
    private boolean tryAnother() {
        group.failed(pool);
        end();
        if (tried == null) {
            tried = new ArrayList<>(2);
        }
        tried.add(pool);
        return pick(); // when none is left, pool stays the failed one, for the log lines that follow
    }

    private static boolean isIdempotent(HttpRequest request) {
        HttpMethod m = request.method();
        return m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD) || m.equals(HttpMethod.OPTIONS)
                || m.equals(HttpMethod.TRACE) || m.equals(HttpMethod.PUT) || m.equals(HttpMethod.DELETE)
                || request.headers().contains("idempotency-key");
    }
}
