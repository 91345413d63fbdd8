package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * Tells the backend who the client is. Values a client sent in these headers are replaced, not appended to: until
 * trusted proxies can be configured, a client's own {@code X-Forwarded-For} is a claim nobody checked.
 */
final class ForwardedHeaders {
    static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
    static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("x-forwarded-proto");
    static final AsciiString X_FORWARDED_HOST = AsciiString.cached("x-forwarded-host");
    static final AsciiString X_REAL_IP = AsciiString.cached("x-real-ip");

    private ForwardedHeaders() {
    }

    static void apply(HttpHeaders headers, String clientIp, String scheme, String host) {
        headers.set(X_FORWARDED_FOR, clientIp);
        headers.set(X_REAL_IP, clientIp);
        headers.set(X_FORWARDED_PROTO, scheme);
        if (host != null) {
            headers.set(X_FORWARDED_HOST, host);
        } else {
            headers.remove(X_FORWARDED_HOST);
        }
    }
}
