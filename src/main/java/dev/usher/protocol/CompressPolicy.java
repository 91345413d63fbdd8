package dev.usher.protocol;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;

import java.util.List;

/**
 * Which responses are worth compressing, and the header changes that go with the choice. Kept apart from the
 * handler so the rules read as one list.
 *
 * <p>A response is a candidate when it has a body of a compressible type that nobody encoded yet and nobody asked
 * to keep as it is. Whether it is then compressed depends on the request (its Accept-Encoding, HEAD, HTTP/1.0);
 * when it is a candidate but not compressed for one of those reasons, it still gets {@code Vary: Accept-Encoding},
 * since another request for the same resource would get a different body and caches must know.
 */
final class CompressPolicy {
    /** Declared bodies shorter than this go as they are: gzip's 18 bytes of framing would eat most of the gain. */
    static final int MIN_LENGTH = 1024;

    private static final String ACCEPT_ENCODING = "Accept-Encoding";

    private CompressPolicy() {
    }

    /** True when {@code response} (a head, or a full response) may be compressed if the request allows it. */
    static boolean candidate(HttpResponse response) {
        int code = response.status().code();
        // 1xx, 204 and 304 have no body; a 206 body is a byte range of the identity body, and compressing it would
        // make the range meaningless.
        if (code < 200 || code == 204 || code == 206 || code == 304) {
            return false;
        }
        // The cheap test first: most small answers stop here (the checks below have no side effects).
        long length = declaredLength(response);
        if (length != -1 && length < MIN_LENGTH) {
            return false;
        }
        HttpHeaders headers = response.headers();
        String transferEncoding = headers.get(HttpHeaderNames.TRANSFER_ENCODING);
        if (transferEncoding != null && !transferEncoding.trim().equalsIgnoreCase("chunked")) {
            return false; // e.g. "gzip, chunked" passed on from the backend: the body is already coded
        }
        if (headers.contains(HttpHeaderNames.CONTENT_RANGE) || alreadyEncoded(headers)
                || headers.containsValue(HttpHeaderNames.CACHE_CONTROL, "no-transform", true)
                || !compressibleType(headers.get(HttpHeaderNames.CONTENT_TYPE))) {
            return false;
        }
        return true;
    }

    /** Any Content-Encoding but {@code identity} means the body is someone else's encoding: leave it alone. */
    static boolean alreadyEncoded(HttpHeaders headers) {
        if (!headers.contains(HttpHeaderNames.CONTENT_ENCODING)) {
            return false; // the usual case, without getAll's list
        }
        for (String value : headers.getAll(HttpHeaderNames.CONTENT_ENCODING)) {
            for (String coding : value.split(",")) {
                String c = coding.trim();
                if (!c.isEmpty() && !c.equalsIgnoreCase("identity")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The body's length when known: a full response's content, else Content-Length; -1 when the body is streamed
     * without one; {@code 0} (never compressed) when the header is not a plain number, which the codecs normally
     * refuse before it gets here.
     */
    private static long declaredLength(HttpResponse response) {
        if (response instanceof HttpContent full) {
            return full.content().readableBytes();
        }
        String value = response.headers().get(HttpHeaderNames.CONTENT_LENGTH);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /**
     * Text, JSON, JavaScript, XML, SVG, WebAssembly and the uncompressed font formats. Everything else (images,
     * video, archives, woff/woff2 which are compressed already) is not worth the CPU; a response without a
     * Content-Type is of unknown kind and is left alone.
     */
    static boolean compressibleType(String contentType) {
        if (contentType == null) {
            return false;
        }
        // Compared in place (ASCII, case-insensitive): this runs on every response head.
        int end = contentType.indexOf(';');
        if (end < 0) {
            end = contentType.length();
        }
        int start = 0;
        while (start < end && contentType.charAt(start) <= ' ') {
            start++;
        }
        while (end > start && contentType.charAt(end - 1) <= ' ') {
            end--;
        }
        int slash = contentType.indexOf('/', start);
        if (slash <= start || slash >= end - 1) {
            return false;
        }
        int sub = slash + 1;
        int subLength = end - sub;
        if (is(contentType, start, slash, "text")) {
            return true;
        }
        if (is(contentType, start, slash, "application")) {
            for (String name : APPLICATION_TYPES) {
                if (is(contentType, sub, end, name)) {
                    return true;
                }
            }
            return subLength >= 5 && is(contentType, end - 5, end, "+json")
                    || subLength >= 4 && is(contentType, end - 4, end, "+xml");
        }
        if (is(contentType, start, slash, "image")) {
            return is(contentType, sub, end, "svg+xml");
        }
        if (is(contentType, start, slash, "font")) {
            return is(contentType, sub, end, "ttf") || is(contentType, sub, end, "otf");
        }
        return false;
    }

    /** Compressible {@code application/} subtypes (besides {@code +json} and {@code +xml}). */
    private static final String[] APPLICATION_TYPES = {"json", "javascript", "x-javascript", "ecmascript", "xml",
        "wasm", "x-font-ttf", "vnd.ms-fontobject"};

    /** True when {@code s[from, to)} is {@code lowerName}, ignoring ASCII case. */
    private static boolean is(String s, int from, int to, String lowerName) {
        if (to - from != lowerName.length()) {
            return false;
        }
        for (int i = 0; i < lowerName.length(); i++) {
            char c = s.charAt(from + i);
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            }
            if (c != lowerName.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds {@code Accept-Encoding} to Vary, merging all Vary fields into one and adding nothing when it is already
     * named or when Vary is {@code *} (which varies on everything already).
     */
    static void addVary(HttpHeaders headers) {
        List<String> values = headers.getAll(HttpHeaderNames.VARY);
        StringBuilder merged = new StringBuilder();
        for (String value : values) {
            for (String field : value.split(",")) {
                String f = field.trim();
                if (f.equals("*") || f.equalsIgnoreCase(ACCEPT_ENCODING)) {
                    return;
                }
                if (!f.isEmpty()) {
                    merged.append(f).append(", ");
                }
            }
        }
        headers.set(HttpHeaderNames.VARY, merged.append(ACCEPT_ENCODING).toString());
    }

    /**
     * A strong ETag promises byte-identical bodies; the compressed body is not byte-identical to the backend's, so
     * the validator becomes weak (as nginx does). A weak one stays as it is.
     */
    static void weakenEtag(HttpHeaders headers) {
        String etag = headers.get(HttpHeaderNames.ETAG);
        if (etag != null && etag.startsWith("\"")) {
            headers.set(HttpHeaderNames.ETAG, "W/" + etag);
        }
        // Byte ranges of the compressed body do not exist: a client resuming a download must not be invited to ask
        // for a range (the backend would answer with identity bytes, which do not fit a compressed prefix).
        headers.remove(HttpHeaderNames.ACCEPT_RANGES);
    }
}
