package dev.usher.rules;

import dev.usher.config.ErrorPage;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * A page of {@code error_pages:} (or a maintenance page) as a response: the file's bytes, shared read-only, with
 * its content type. The one place both the rules' answers and the proxy's error pages turn a page file into a
 * response.
 */
public final class PageResponses {
    private PageResponses() {
    }

    /** {@code page} with {@code status}; {@code close} adds {@code Connection: close}. */
    public static FullHttpResponse of(ErrorPage page, HttpResponseStatus status, boolean close) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(page.sharedBytes()).asReadOnly());
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, page.contentType())
                .set(HttpHeaderNames.CONTENT_LENGTH, page.length())
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set(SecurityHeaders.X_CONTENT_TYPE_OPTIONS, SecurityHeaders.NOSNIFF);
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }
}
