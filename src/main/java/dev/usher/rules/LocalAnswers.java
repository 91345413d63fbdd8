package dev.usher.rules;

import dev.usher.config.ErrorPage;
import dev.usher.config.ErrorPageSet;
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
 * The small pages the rules answer with (403, 401, 429, 502, 503, 504), in the style of
 * {@code dev.usher.proxy.ErrorPages}: plain words, nothing internal; or the site's own page for the status from
 * {@code error_pages:}. Kept here rather than calling ErrorPages because {@code proxy} depends on this package, not
 * the other way round. Bodies are built once and shared read-only by every response.
 */
final class LocalAnswers {
    private final byte[] forbidden = page(HttpResponseStatus.FORBIDDEN, "Your address may not use this site.");
    private final byte[] unauthorized = page(HttpResponseStatus.UNAUTHORIZED,
            "This site needs a user name and password.");
    private final byte[] tooMany = page(HttpResponseStatus.TOO_MANY_REQUESTS,
            "Too many requests from your address. Please wait a moment and try again.");
    private final byte[] busy = page(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "The site is busy right now. Please try again in a moment.");
    private final byte[] maintenance = page(HttpResponseStatus.SERVICE_UNAVAILABLE,
            "The site is down for maintenance. Please come back in a few minutes.");
    private final byte[] authUnreachable = page(HttpResponseStatus.BAD_GATEWAY,
            "The sign-in service could not be reached.");
    private final byte[] authTooSlow = page(HttpResponseStatus.GATEWAY_TIMEOUT,
            "The sign-in service did not answer in time.");

    FullHttpResponse forbidden(boolean keepAlive, ErrorPageSet pages) {
        return response(HttpResponseStatus.FORBIDDEN, forbidden, keepAlive, pages);
    }

    FullHttpResponse unauthorized(String challenge, boolean keepAlive, ErrorPageSet pages) {
        FullHttpResponse response = response(HttpResponseStatus.UNAUTHORIZED, unauthorized, keepAlive, pages);
        response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, challenge);
        return response;
    }

    FullHttpResponse tooManyRequests(long retryAfterSeconds, boolean keepAlive, ErrorPageSet pages) {
        FullHttpResponse response = response(HttpResponseStatus.TOO_MANY_REQUESTS, tooMany, keepAlive, pages);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        return response;
    }

    FullHttpResponse busy(long retryAfterSeconds, boolean keepAlive, ErrorPageSet pages) {
        FullHttpResponse response = response(HttpResponseStatus.SERVICE_UNAVAILABLE, busy, keepAlive, pages);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        return response;
    }

    /** 503 with Retry-After: the maintenance page, else the site's 503 page, else the built-in one. */
    FullHttpResponse maintenance(long retryAfterSeconds, ErrorPage page, boolean keepAlive, ErrorPageSet pages) {
        FullHttpResponse response = page != null
                ? PageResponses.of(page, HttpResponseStatus.SERVICE_UNAVAILABLE, !keepAlive)
                : response(HttpResponseStatus.SERVICE_UNAVAILABLE, maintenance, keepAlive, pages);
        response.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfterSeconds);
        return response;
    }

    /** The auth server could not be asked (502) or did not answer in time (504): nothing gets through. */
    FullHttpResponse authUnavailable(boolean timedOut, boolean keepAlive, ErrorPageSet pages) {
        return timedOut ? response(HttpResponseStatus.GATEWAY_TIMEOUT, authTooSlow, keepAlive, pages)
                : response(HttpResponseStatus.BAD_GATEWAY, authUnreachable, keepAlive, pages);
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] page, boolean keepAlive,
                                             ErrorPageSet pages) {
        ErrorPage own = pages.forStatus(status.code());
        return own != null ? PageResponses.of(own, status, !keepAlive) : response(status, page, keepAlive);
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
