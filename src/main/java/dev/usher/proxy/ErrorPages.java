package dev.usher.proxy;

import dev.usher.config.ErrorPage;
import dev.usher.config.ErrorPageSet;
import dev.usher.rules.PageResponses;
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
 * Usher's own answers (404 for an unknown site, 502/504 when a backend fails, 4xx for bad requests): small pages
 * that say what happened in plain words and name nothing internal (no backend address, no stack, no version), or
 * the site's (or the server's) own page for the status from {@code error_pages:}.
 */
public final class ErrorPages {
    private ErrorPages() {
    }

    /** The page {@code pages} has for {@code status}, else the built-in one. */
    public static FullHttpResponse response(HttpResponseStatus status, boolean close, ErrorPageSet pages) {
        ErrorPage page = pages.forStatus(status.code());
        return page != null ? PageResponses.of(page, status, close) : response(status, close);
    }

    /** A complete response for {@code status}; {@code close} adds {@code Connection: close}. */
    public static FullHttpResponse response(HttpResponseStatus status, boolean close) {
        ByteBuf body = Unpooled.wrappedBuffer(page(status).getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .set("x-content-type-options", "nosniff");
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    static String page(HttpResponseStatus status) {
        String title = status.code() + " " + status.reasonPhrase();
        return "<!doctype html><meta charset=utf-8><title>" + title + "</title>"
                + "<h1>" + title + "</h1><p>" + explanation(status.code()) + "</p>\n";
    }

    private static String explanation(int code) {
        return switch (code) {
            case 400 -> "The request was malformed.";
            case 404 -> "No site is configured for this host name.";
            case 405 -> "This method is not supported here.";
            case 408 -> "The request took too long to arrive.";
            case 413 -> "The request body is larger than this site accepts.";
            case 414 -> "The request line is too long.";
            case 431 -> "The request headers are too large.";
            case 502 -> "The site's backend could not be reached or gave an invalid answer.";
            case 503 -> "The site is not available right now.";
            case 504 -> "The site's backend did not answer in time.";
            default -> "The request could not be served.";
        };
    }
}
