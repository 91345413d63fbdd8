package dev.usher.rules;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

/**
 * {@code security_headers: true}: sensible defaults for a site that sets none itself. Each is added only when the
 * backend did not send it, because the application knows its own needs better (a page meant to be framed, say).
 */
final class SecurityHeaders {
    static final AsciiString STRICT_TRANSPORT_SECURITY = AsciiString.cached("strict-transport-security");
    static final AsciiString X_CONTENT_TYPE_OPTIONS = AsciiString.cached("x-content-type-options");
    static final AsciiString X_FRAME_OPTIONS = AsciiString.cached("x-frame-options");
    static final AsciiString REFERRER_POLICY = AsciiString.cached("referrer-policy");
    static final AsciiString ONE_YEAR = AsciiString.cached("max-age=31536000");
    static final AsciiString NOSNIFF = AsciiString.cached("nosniff");
    static final AsciiString SAMEORIGIN = AsciiString.cached("SAMEORIGIN");
    static final AsciiString STRICT_ORIGIN_WHEN_CROSS_ORIGIN = AsciiString.cached("strict-origin-when-cross-origin");

    private SecurityHeaders() {
    }

    /** HSTS only over HTTPS: browsers ignore it on plain HTTP, and it must never pin a plain-HTTP-only site. */
    static void addMissing(HttpHeaders headers, boolean https) {
        if (https) {
            addIfAbsent(headers, STRICT_TRANSPORT_SECURITY, ONE_YEAR);
        }
        addIfAbsent(headers, X_CONTENT_TYPE_OPTIONS, NOSNIFF);
        addIfAbsent(headers, X_FRAME_OPTIONS, SAMEORIGIN);
        addIfAbsent(headers, REFERRER_POLICY, STRICT_ORIGIN_WHEN_CROSS_ORIGIN);
    }

    private static void addIfAbsent(HttpHeaders headers, AsciiString name, AsciiString value) {
        if (!headers.contains(name)) {
            headers.set(name, value);
        }
    }
}
