package dev.usher.rules;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;

/**
 * The small pages the rules answer with (403, 401, 429, 503), in the style of {@code dev.usher.proxy.ErrorPages}:
 * plain words, nothing internal. Kept here rather than calling ErrorPages because {@code proxy} depends on this
 * package, not the other way round. Bodies are built once and shared read-only by every response.
 */
final class LocalAnswers {
    private final byte[] forbidden = page(HttpResponseStatus.FORBIDDEN, "Your address may not use this site.");
    private final byte[] unauthorized = page(HttpResponseStatus.UNAUTHORIZED,
            "This site needs a user name and password.");
    private final byte[] tooMany = page(HttpResponseStatus.TOO_MANY_REQUESTS,
            "Too many requests from your address. Please wait a moment and try again.");
    private final byte[] busy = page(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "The site is busy right now. Please try again in a moment.");

    FullHttpResponse forbidden(boolean keepAlive) {
        return response(HttpResponseStatus.FORBIDDEN, forbidden, keepAlive);
    }

    FullHttpResponse unauthorized(String challenge, boolean keepAlive) {
        FullHttpResponse response = response(HttpResponseStatus.UNAUTHORIZED, unauthorized, keepAlive);
        response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, challenge);
        return response;
    }

    FullHttpResponse tooManyRequests(long retryAfterSeconds, boolean keepAlive) {
        FullHttpResponse response = response(HttpResponseStatus.TOO_MANY_REQUESTS, tooMany, keepAlive);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        return response;
    }

    FullHttpResponse busy(long retryAfterSeconds, boolean keepAlive) {
        FullHttpResponse response = response(HttpResponseStatus.SERVICE_UNAVAILABLE, busy, keepAlive);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        return response;
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] page, boolean keepAlive) {
        ByteBuf body = Unpooled.wrappedBuffer(page).asReadOnly();
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, page.length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set(SecurityHeaders.X_CONTENT_TYPE_OPTIONS, SecurityHeaders.NOSNIFF);
        closeUnlessKeepAlive(response, keepAlive);
        return response;
    }

    static void closeUnlessKeepAlive(FullHttpResponse response, boolean keepAlive) {
        if (!keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
    }

    private static byte[] page(HttpResponseStatus status, String explanation) {
        String title = status.code() + " " + status.reasonPhrase();
        return ("<!doctype html><meta charset=utf-8><title>" + title + "</title>"
                + "<h1>" + title + "</h1><p>" + explanation + "</p>\n").getBytes(StandardCharsets.UTF_8);
    }
}
