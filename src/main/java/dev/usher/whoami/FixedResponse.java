package dev.usher.whoami;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;

/**
 * A response known from the request head alone (the whoami text, {@code /health}, {@code /status/NNN}, errors).
 * The request body is read and discarded; the response is written once the body has ended, so the connection is
 * ready for the next request when it completes.
 */
final class FixedResponse implements Exchange {
    static final String TEXT_PLAIN = "text/plain; charset=utf-8";

    private final ExchangeContext context;
    private final HttpResponseStatus status;
    private final String contentType;
    private final byte[] body;

    FixedResponse(ExchangeContext context, HttpResponseStatus status, String contentType, byte[] body) {
        this.context = context;
        this.status = status;
        this.contentType = contentType;
        this.body = body;
    }

    /** A {@code text/plain} response with a UTF-8 body. */
    static FixedResponse text(ExchangeContext context, HttpResponseStatus status, String body) {
        return new FixedResponse(context, status, TEXT_PLAIN, body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void content(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last) {
            send();
        }
    }

    private void send() {
        int code = status.code();
        boolean noBody = code == 204 || code == 304;
        ByteBuf payload = noBody || context.isHead() ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
        FullHttpResponse response = context.full(status, payload);
        if (code != 204) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, noBody ? 0 : body.length);
        }
        if (!noBody) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        context.finish(context.ctx().writeAndFlush(response));
    }
}
