package dev.usher.proxy;

import dev.usher.route.Route;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

import java.lang.System.Logger.Level;

/**
 * A backend's response on its way back to the client of a {@link ProxyExchange}: how far it has come
 * ({@link ResponsePhase}), interim heads passed on, the final head re-framed by {@link ResponseFraming}, the body
 * streamed, a backend 5xx replaced by the site's page ({@code error_pages: {intercept: true}}), and a 101 turned into
 * a relay. It also keeps what the response decides about both connections: whether the client's ends after it, and
 * whether the backend's may be reused. Ending the exchange stays the exchange's ({@link ProxyExchange#end}); this
 * class calls it when the response is over.
 *
 * <p>Threading: the client's event loop, like its exchange.
 */
final class ForwardedResponse {
    private static final System.Logger LOG = System.getLogger(ForwardedResponse.class.getName());

    private final ProxyExchange exchange;
    private final ClientSide handler;
    private final ChannelHandlerContext ctx;
    private final Route route;
    private final HttpRequest request;
    private final RequestShape shape;
    private final boolean https;
    private ResponsePhase phase = ResponsePhase.AWAITING_HEAD;
    /** The client connection ends after this response (the client asked, HTTP/1.0 framing, Usher stopping). */
    private boolean closeClientAfter;
    /** The backend connection may be reused after this response, as far as the response head says. */
    private boolean backendReusable = true;
    /** The backend's status being replaced by the site's page, while {@link ResponsePhase#REPLACING}. */
    private HttpResponseStatus replaced;

    ForwardedResponse(ProxyExchange exchange, ClientSide handler, ChannelHandlerContext ctx, Route route,
                      HttpRequest request, RequestShape shape) {
        this.exchange = exchange;
        this.handler = handler;
        this.ctx = ctx;
        this.route = route;
        this.request = request;
        this.shape = shape;
        this.https = handler.isHttps();
    }

    ResponsePhase phase() {
        return phase;
    }

    /** Usher is stopping, or the client asked: the client connection ends after this response. */
    void closeClientAfter() {
        closeClientAfter = true;
    }

    /** True when the client connection ends after this response. */
    boolean closesClient() {
        return closeClientAfter;
    }

    /** True when the response head leaves the backend connection reusable. */
    boolean backendReusable() {
        return backendReusable;
    }

    /** A message from the backend, while the exchange is under way. */
    void read(Object msg) {
        if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg);
            LOG.log(Level.INFO, "{0}: invalid response from backend {1}: {2}", route.site().name(),
                    exchange.backend(), http.decoderResult().cause());
            exchange.upstreamFailed();
            return;
        }
        if (msg instanceof HttpResponse response) {
            head(response);
        }
        if (msg instanceof HttpContent content) {
            content(content);
        } else if (!(msg instanceof HttpResponse)) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void head(HttpResponse response) {
        switch (ResponseFraming.kind(response, shape)) {
            case SWITCH -> switchProtocols(response);
            case INVALID -> exchange.upstreamFailed();
            case INTERIM -> {
                // 100 Continue and friends: pass the head on, drop its end marker, keep waiting for the final answer.
                phase = ResponsePhase.INTERIM;
                FullHttpResponse interim = ResponseFraming.interimHead(response, shape);
                if (interim != null) {
                    ctx.write(interim);
                }
            }
            case FINAL -> finalHead(response);
        }
    }

    private void finalHead(HttpResponse response) {
        exchange.answered();
        exchange.upstream().keepAliveTimeout(response.headers().get(HttpHeaderNames.KEEP_ALIVE));
        ResponseFraming.Afterwards afterwards = ResponseFraming.finalHead(response, request.method(), shape,
                closeClientAfter);
        backendReusable = afterwards.backendReusable();
        closeClientAfter = !afterwards.clientStaysOpen();
        if (replacesWithPage(response.status())) {
            phase = ResponsePhase.REPLACING;
            replaced = response.status();
            return;
        }
        phase = ResponsePhase.STREAMING;
        route.rules().editResponse(response.headers(), https);
        if (!(response instanceof LastHttpContent)) {
            ctx.write(response, ctx.voidPromise());
        } // else all of it in one message (an HTTP/2 backend's trailers-only answer): it goes as the last piece
    }

    /** True when the site's {@code error_pages: {intercept: true}} has a page for this backend 5xx. */
    private boolean replacesWithPage(HttpResponseStatus status) {
        var pages = route.site().traffic().errorPages();
        return pages.intercept() && status.code() >= 500 && pages.forStatus(status.code()) != null;
    }

    private void content(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        if (exchange.ending() != null) {
            content.release(); // the head in the same message ended the exchange (a 101 nobody asked for)
            return;
        }
        if (phase == ResponsePhase.INTERIM && last) {
            phase = ResponsePhase.AWAITING_HEAD;
            content.release();
            return;
        }
        if (phase == ResponsePhase.REPLACING) {
            content.release();
            if (last) {
                sendReplacement();
            }
            return;
        }
        if (!last) {
            ctx.write(content, ctx.voidPromise());
            return;
        }
        phase = ResponsePhase.DONE;
        // A backend may answer before the request body is in (an early error, or an echo that streams): the rest
        // of the body is not worth reading, so the connection ends with this response.
        boolean close = closeClientAfter || !exchange.requestReceived();
        exchange.end(Ending.COMPLETED);
        // Flush here: once the connection is back in its pool, this exchange hears no more read-complete events.
        if (close) {
            ctx.writeAndFlush(content).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(content, ctx.voidPromise());
        }
        handler.exchangeDone(exchange, close);
    }

    /** The backend's 5xx body is all read (and dropped): the site's page goes to the client in its place. */
    private void sendReplacement() {
        phase = ResponsePhase.DONE;
        boolean close = closeClientAfter || !exchange.requestReceived();
        exchange.end(Ending.COMPLETED);
        FullHttpResponse page = ErrorPages.response(replaced, close, route.site().traffic().errorPages());
        route.rules().editResponse(page.headers(), https);
        handler.respond(page, close);
        handler.exchangeDone(exchange, close);
    }

    /** A 101 answer to an upgrade request: both connections become a raw relay of bytes. */
    private void switchProtocols(HttpResponse response) {
        phase = ResponsePhase.RELAYED;
        exchange.answered();
        Channel backend = exchange.upstream().channel();
        exchange.end(Ending.UPGRADED);
        boolean websocket = ResponseFraming.switchHead(response);
        route.rules().editResponse(response.headers(), https);
        ctx.writeAndFlush(response, ctx.voidPromise());
        handler.switchToRelay(backend, websocket, route.site().traffic().websocketIdle());
    }
}
