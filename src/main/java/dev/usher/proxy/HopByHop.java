package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

import java.util.Iterator;
import java.util.List;

/**
 * Removes the headers that describe one connection rather than the message (RFC 9110 §7.6.1): the fixed list plus
 * every header named in {@code Connection}. A proxy that forwarded them would let a client steer the backend
 * connection (its keep-alive, its framing) or hide headers from one hop.
 */
final class HopByHop {
    private static final List<AsciiString> FIXED = List.of(
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.PROXY_AUTHENTICATE, HttpHeaderNames.PROXY_AUTHORIZATION,
            AsciiString.cached("http2-settings"));

    private HopByHop() {
    }

    /** Strips hop-by-hop headers in place. */
    static void strip(HttpHeaders headers) {
        if (headers.contains(HttpHeaderNames.CONNECTION)) {
            // Connection itself is never removed while its values are read (it is in FIXED, removed below); other
            // removals leave the iterator's entries alone.
            for (Iterator<? extends CharSequence> values = headers.valueCharSequenceIterator(HttpHeaderNames.CONNECTION);
                 values.hasNext(); ) {
                CharSequence value = values.next();
                int start = 0;
                while (start <= value.length()) {
                    int comma = indexOf(value, ',', start);
                    removeNamed(headers, value, start, comma);
                    start = comma + 1;
                }
            }
        }
        for (int i = 0; i < FIXED.size(); i++) {
            headers.remove(FIXED.get(i));
        }
    }

    /** Removes the header named by the token {@code value[from, to)} (trimmed), unless it is empty or end-to-end. */
    private static void removeNamed(HttpHeaders headers, CharSequence value, int from, int to) {
        while (from < to && isSpace(value.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(value.charAt(to - 1))) {
            to--;
        }
        if (from == to) {
            return;
        }
        // The names Connection usually lists are matched in place, so the usual request needs no String per token.
        for (int i = 0; i < FIXED.size(); i++) {
            if (matches(value, from, to, FIXED.get(i))) {
                return; // removed with the fixed list
            }
        }
        if (matches(value, from, to, HttpHeaderValues.CLOSE)) {
            headers.remove(HttpHeaderValues.CLOSE); // as for any other name: a client may name a header "close"
            return;
        }
        String name = value.subSequence(from, to).toString();
        if (!isEndToEndFraming(name)) {
            headers.remove(name);
        }
    }

    private static boolean matches(CharSequence value, int from, int to, AsciiString name) {
        return name.length() == to - from && AsciiString.regionMatches(value, true, from, name, 0, to - from);
    }

    private static int indexOf(CharSequence s, char c, int from) {
        for (int i = from; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return s.length();
    }

    /** The whitespace String.trim() dropped around a token (every control character and space). */
    private static boolean isSpace(char c) {
        return c <= ' ';
    }

    /** A client naming Content-Length or Host in Connection must not make the proxy drop them. */
    private static boolean isEndToEndFraming(String name) {
        return name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("host");
    }
}
