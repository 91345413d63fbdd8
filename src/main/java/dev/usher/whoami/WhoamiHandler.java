package dev.usher.whoami;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Runs one connection's requests one at a time: takes a request head, asks {@link Router} for a plan, starts the
 * {@link Exchange} (after any {@code ?wait=}), feeds it the body, and reads the next request only when the
 * exchange says the response is done.
 *
 * <p>Reading: auto-read is off and a {@code FlowControlHandler} sits in front, so each {@code read()} delivers
 * one HTTP object. A read is wanted between requests, and during a body only while the exchange wants more
 * (backpressure); never while a response is being written, so pipelined requests wait their turn.
 * {@link #drainReads()} issues the reads in a loop, and reads wanted inside one of this handler's events are
 * issued when the outermost event returns: {@code FlowControlHandler} delivers queued messages synchronously from
 * {@code read()}, so issuing reads from inside {@code channelRead} would recurse once per pipelined message.
 * {@code FlowControlHandler} also forgets unsatisfied reads at {@code channelReadComplete}, so a pending read is
 * considered gone there and is issued again if still wanted.
 *
 * <p>Threading: all state is confined to the connection's event loop.
 */
final class WhoamiHandler extends ChannelInboundHandlerAdapter {
    private enum State { IDLE, WAITING, BODY, RESPONDING, CLOSED }

    private final Identity identity;
    private final Counters counters;
    private ChannelHandlerContext ctx;
    private State state = State.IDLE;
    private Exchange exchange;
    private boolean readPending;
    /** How many of this handler's events are on the stack; reads are issued only at depth 0. */
    private int depth;
    private Future<?> delayed;

    WhoamiHandler(Identity identity, Counters counters) {
        this.identity = identity;
        this.counters = counters;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        drainReads();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        readPending = false;
        depth++;
        try {
            handle(msg);
        } finally {
            depth--;
        }
        drainReads();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readPending = false; // an unsatisfied read does not survive the end of a read cycle
        ctx.fireChannelReadComplete();
        drainReads();
    }

    private void handle(Object msg) {
        if (msg instanceof HttpRequest) {
            counters.requestSeen();
        }
        if (msg instanceof DecoderResultProvider p && p.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            badMessage(p.decoderResult().cause());
            return;
        }
        if (msg instanceof HttpRequest request) {
            onRequest(request);
        }
        if (msg instanceof HttpContent content) {
            onContent(content);
        } else if (!(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onRequest(HttpRequest request) {
        if (state != State.IDLE) {
            ctx.close(); // cannot happen: no read is requested while a request is in progress
            return;
        }
        Router.Plan plan = Router.plan(request);
        state = State.WAITING;
        if (plan.delayNanos() > 0) {
            delayed = ctx.executor().schedule(() -> {
                start(request, plan);
                drainReads();
            }, plan.delayNanos(), TimeUnit.NANOSECONDS);
        } else {
            start(request, plan);
        }
    }

    private void start(HttpRequest request, Router.Plan plan) {
        delayed = null;
        if (state != State.WAITING) {
            return; // closed while waiting
        }
        exchange = plan.exchange().apply(new ExchangeContext(ctx, request, identity, this::exchangeDone));
        state = State.BODY;
    }

    private void onContent(HttpContent content) {
        if (state != State.BODY) {
            content.release();
            ctx.close();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (last) {
            state = State.RESPONDING; // before the exchange runs: it may finish (and call done) synchronously
        }
        exchange.content(content);
    }

    private void exchangeDone() {
        if (state != State.RESPONDING) {
            return;
        }
        exchange = null;
        state = State.IDLE;
        drainReads(); // no-op when called inside one of our events: the outermost one drains on return
    }

    /** Issues reads while one is wanted and none is pending; only at depth 0, so the stack stays flat. */
    private void drainReads() {
        if (depth > 0) {
            return;
        }
        depth++;
        try {
            while (!readPending && readWanted() && ctx.channel().isActive()) {
                readPending = true;
                ctx.read(); // may deliver a queued message at once, which clears readPending
            }
        } finally {
            depth--;
        }
    }

    private boolean readWanted() {
        return state == State.IDLE || state == State.BODY && exchange.wantsContent();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        depth++;
        try {
            if (exchange != null) {
                exchange.writabilityChanged();
            }
            ctx.fireChannelWritabilityChanged();
        } finally {
            depth--;
        }
        drainReads();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        exchange = null;
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // resets and broken pipes are routine for a test backend; nothing to report
    }

    /** A request the codec could not parse: answer 400 when no response has started, then close. */
    private void badMessage(Throwable cause) {
        if (state != State.IDLE) {
            ctx.close();
            return;
        }
        state = State.CLOSED;
        String text = "bad request: " + (cause == null ? "malformed" : cause.getMessage()) + "\n";
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST,
                Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
        response.headers()
                .set(ExchangeContext.X_WHOAMI, identity.name())
                .set(HttpHeaderNames.CONTENT_TYPE, FixedResponse.TEXT_PLAIN)
                .set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
