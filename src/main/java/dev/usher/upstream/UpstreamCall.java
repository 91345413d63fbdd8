package dev.usher.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One small request to a backend and its whole answer, held in memory: what a forward-auth check asks its auth
 * server. It uses the backend's keep-alive pool like any proxied request (the connection goes back to it when both
 * messages went in full and the answer allows it), never blocks, and is bounded in time (the answer within
 * {@code timeout} of the request, else it fails as timed out) and in size (an answer body over {@code maxBody}
 * fails). A kept-alive connection found closed before any answer is tried once more on a new connection, as the
 * proxy does.
 *
 * <p>Threading: the event loop it was started on, which is also the connection's.
 */
public final class UpstreamCall implements UpstreamListener {
    /** The call did not get an answer: the backend could not be reached, answered badly, or too slowly. */
    public static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean timedOut;

        Failed(String message, boolean timedOut) {
            super(message, null, false, false);
            this.timedOut = timedOut;
        }

        /** True when it did not connect or answer in time (504), rather than failing otherwise (502). */
        public boolean timedOut() {
            return timedOut;
        }
    }

    private final UpstreamPool pool;
    private final EventLoop loop;
    private final FullHttpRequest request;
    private final Duration connectTimeout;
    private final long timeoutNanos;
    private final int maxBody;
    private final Promise<FullHttpResponse> promise;
    private UpstreamConnection conn;
    private ScheduledFuture<?> timer;
    private HttpResponse head;
    private CompositeByteBuf body;
    private boolean interim;
    private boolean retried;

    private UpstreamCall(UpstreamPool pool, EventLoop loop, FullHttpRequest request, Duration connectTimeout,
                         Duration timeout, int maxBody) {
        this.pool = pool;
        this.loop = loop;
        this.request = request;
        this.connectTimeout = connectTimeout;
        this.timeoutNanos = timeout.toNanos();
        this.maxBody = maxBody;
        this.promise = loop.newPromise();
    }

    /**
     * Sends {@code request} (which this call then owns) to {@code pool}'s backend. Must be called on {@code loop};
     * the future completes there, with a response the caller must release, or fails with {@link Failed}.
     */
    public static Future<FullHttpResponse> send(UpstreamPool pool, EventLoop loop, FullHttpRequest request,
                                                Duration connectTimeout, Duration timeout, int maxBody) {
        UpstreamCall call = new UpstreamCall(pool, loop, request, connectTimeout, timeout, maxBody);
        call.timer = loop.schedule(call::timedOut, call.timeoutNanos, TimeUnit.NANOSECONDS);
        call.connect(false);
        return call.promise;
    }

    private void connect(boolean fresh) {
        Future<UpstreamConnection> f = pool.acquire(loop, connectTimeout, fresh);
        if (f.isDone()) {
            connected(f);
        } else {
            f.addListener(done -> connected(f));
        }
    }

    private void connected(Future<UpstreamConnection> f) {
        if (promise.isDone()) {
            if (f.isSuccess()) {
                f.getNow().release();
            }
            return;
        }
        if (!f.isSuccess()) {
            fail("cannot connect to " + pool.address() + ": " + f.cause().getMessage(),
                    f.cause() instanceof ConnectTimeoutException);
            return;
        }
        conn = f.getNow();
        conn.attach(this);
        conn.channel().writeAndFlush(request.retainedDuplicate()).addListener(w -> {
            if (!w.isSuccess() && conn != null) {
                conn.close(); // upstreamClosed follows
            }
        });
        conn.channel().read();
    }

    @Override
    public void upstreamRead(Object msg) {
        if (promise.isDone()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            closeAndFail("an invalid answer from " + pool.address());
            return;
        }
        if (msg instanceof HttpResponse response) {
            interim = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
            if (!interim) {
                head = response;
                body = conn.channel().alloc().compositeBuffer();
            }
        }
        if (msg instanceof HttpContent content) {
            if (interim) {
                content.release(); // the end of a 100 Continue or 103: the final answer follows
                interim = !(content instanceof LastHttpContent);
                return;
            }
            if (body == null || body.readableBytes() + content.content().readableBytes() > maxBody) {
                content.release();
                closeAndFail(body == null ? "a body before any answer from " + pool.address()
                        : "an answer over " + maxBody + " bytes from " + pool.address());
                return;
            }
            ByteBuf piece = content.content().retain();
            body.addComponent(true, piece);
            boolean last = content instanceof LastHttpContent;
            content.release();
            if (last) {
                complete();
            }
        } else if (!(msg instanceof HttpResponse)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void complete() {
        UpstreamConnection c = conn;
        conn = null;
        stopTimer();
        c.keepAliveTimeout(head.headers().get(HttpHeaderNames.KEEP_ALIVE));
        if (HttpUtil.isKeepAlive(head)) {
            c.release();
        } else {
            c.close();
        }
        FullHttpResponse answer = new DefaultFullHttpResponse(head.protocolVersion(), head.status(), body,
                head.headers(), io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
        body = null;
        request.release();
        if (!promise.trySuccess(answer)) {
            answer.release();
        }
    }

    @Override
    public void upstreamReadComplete() {
        if (conn != null && !promise.isDone()) {
            conn.channel().read();
        }
    }

    @Override
    public void upstreamWritabilityChanged(boolean writable) {
        // a bodiless request: nothing waits on the connection's writability
    }

    @Override
    public void upstreamClosed(Throwable cause) {
        if (promise.isDone()) {
            return;
        }
        boolean reused = conn != null && conn.reused();
        conn = null;
        if (head == null && reused && !retried) {
            retried = true; // a kept-alive connection the backend had closed: once more, on a new one
            connect(true);
            return;
        }
        fail("the connection to " + pool.address() + " closed before the answer", false);
    }

    private void timedOut() {
        timer = null;
        if (!promise.isDone()) {
            UpstreamConnection c = conn;
            conn = null;
            if (c != null) {
                c.close();
            }
            fail(pool.address() + " did not answer within " + Duration.ofNanos(timeoutNanos).toMillis() + " ms",
                    true);
        }
    }

    private void closeAndFail(String why) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.close();
        }
        fail(why, false);
    }

    private void fail(String why, boolean timedOut) {
        stopTimer();
        if (body != null) {
            body.release();
            body = null;
        }
        if (request.refCnt() > 0) {
            request.release();
        }
        promise.tryFailure(new Failed(why, timedOut));
    }

    private void stopTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
