package dev.usher.rules;

import dev.usher.config.FixedAnswer;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/**
 * A site's {@code respond:}: the same status and body for every request. The body is encoded once and shared
 * read-only; for HEAD the codec drops the body and keeps Content-Length. Statuses that may not carry a body
 * (1xx, 204, 304) get none.
 */
final class FixedReply {
    private final HttpResponseStatus status;
    private final byte[] body;
    private final String contentType;
    private final boolean bodyAllowed;

    FixedReply(FixedAnswer answer) {
        this.status = HttpResponseStatus.valueOf(answer.status());
        int code = answer.status();
        this.bodyAllowed = code >= 200 && code != 204 && code != 304;
        String text = answer.body() == null ? "" : answer.body();
        this.body = bodyAllowed ? text.getBytes(StandardCharsets.UTF_8) : new byte[0];
        this.contentType = answer.contentType() == null || answer.contentType().isBlank()
                ? "text/plain; charset=utf-8" : HeaderText.requireValue("content type", answer.contentType());
    }

    FullHttpResponse response(boolean keepAlive) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body).asReadOnly());
        if (bodyAllowed) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            if (body.length > 0) {
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            }
        }
        LocalAnswers.closeUnlessKeepAlive(response, keepAlive);
        return response;
    }
}
