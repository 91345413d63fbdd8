package dev.usher.whoami;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * What an {@link Exchange} works with: the handler context to write through, the request head, who we are, and
 * the callback that says the response is complete. Also builds response heads with the headers every whoami
 * response carries ({@code X-Whoami}, the right {@code Connection}).
 *
 * @param ctx      the context of {@link WhoamiHandler}; writes go out through the HTTP codec
 * @param request  the request head
 * @param identity the name and addresses to report
 * @param done     to run once the last response part has been written
 */
record ExchangeContext(ChannelHandlerContext ctx, HttpRequest request, Identity identity, Runnable done) {

    /** The response header that tells tests which backend answered. */
    static final String X_WHOAMI = "X-Whoami";

    Channel channel() {
        return ctx.channel();
    }

    boolean isHead() {
        return HttpMethod.HEAD.equals(request.method());
    }

    /** HTTP/1.0 clients get HTTP/1.0 answers (like Go's server); everything else HTTP/1.1. */
    HttpVersion responseVersion() {
        return HttpVersion.HTTP_1_0.equals(request.protocolVersion()) ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    }

    /** A response head with {@code X-Whoami} and keep-alive as the request asked; no length set yet. */
    HttpResponse head(HttpResponseStatus status) {
        HttpResponse response = new DefaultHttpResponse(responseVersion(), status);
        decorate(response.headers());
        return response;
    }

    /** A complete response with {@code body} (owned by the response) and no length set yet. */
    FullHttpResponse full(HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(responseVersion(), status, body);
        decorate(response.headers());
        return response;
    }

    /** Calls {@link #done} when the last write succeeded, closes the connection when it failed. */
    void finish(ChannelFuture lastWrite) {
        lastWrite.addListener(f -> {
            if (f.isSuccess()) {
                done.run();
            } else {
                ctx.close();
            }
        });
    }

    private void decorate(HttpHeaders headers) {
        headers.set(X_WHOAMI, identity.name());
        HttpUtil.setKeepAlive(headers, responseVersion(), HttpUtil.isKeepAlive(request));
        if (!HttpUtil.isKeepAlive(request)) {
            headers.set(HttpHeaderNames.CONNECTION, "close");
        }
    }
}
