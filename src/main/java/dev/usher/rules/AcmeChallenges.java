package dev.usher.rules;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Answers ACME HTTP-01 validation requests ({@code GET /.well-known/acme-challenge/TOKEN}, RFC 8555 §8.3) on the
 * plain-HTTP listener, ahead of the redirect to HTTPS and of every access rule: the CA's validators come from
 * addresses no allow-list names.
 */
final class AcmeChallenges {
    static final String PREFIX = "/.well-known/acme-challenge/";

    private final Function<String, String> keyAuthorizations;

    /** {@code keyAuthorizations}: token → key authorization currently published, or null. */
    AcmeChallenges(Function<String, String> keyAuthorizations) {
        this.keyAuthorizations = keyAuthorizations;
    }

    /** The validation answer, or null when the request is not for a token Usher published. */
    FullHttpResponse answer(HttpRequest request, boolean keepAlive) {
        String uri = request.uri();
        if (!uri.startsWith(PREFIX) || !(HttpMethod.GET.equals(request.method())
                || HttpMethod.HEAD.equals(request.method()))) {
            return null;
        }
        String token = uri.substring(PREFIX.length());
        int end = token.indexOf('?');
        String keyAuthorization = keyAuthorizations.apply(end < 0 ? token : token.substring(0, end));
        if (keyAuthorization == null) {
            return null;
        }
        byte[] body = keyAuthorization.getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        LocalAnswers.closeUnlessKeepAlive(response, keepAlive);
        return response;
    }
}
