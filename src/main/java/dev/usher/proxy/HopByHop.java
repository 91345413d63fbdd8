package dev.usher.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;

import java.util.List;

/**
 * Removes the headers that describe one connection rather than the message (RFC 9110 §7.6.1): the fixed list plus
 * every header named in {@code Connection}. A proxy that forwarded them would let a client steer the backend
 * connection (its keep-alive, its framing) or hide headers from one hop.
 */
final class HopByHop {
    private static final List<CharSequence> FIXED = List.of(
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.TE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.PROXY_AUTHENTICATE, HttpHeaderNames.PROXY_AUTHORIZATION,
            AsciiString.cached("http2-settings"));

    private HopByHop() {
    }

    /** Strips hop-by-hop headers in place. */
    static void strip(HttpHeaders headers) {
        if (headers.contains(HttpHeaderNames.CONNECTION)) {
            for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
                for (String token : value.split(",")) {
                    String name = token.trim();
                    if (!name.isEmpty() && !isEndToEndFraming(name)) {
                        headers.remove(name);
                    }
                }
            }
        }
        for (CharSequence name : FIXED) {
            headers.remove(name);
        }
    }

    /** A client naming Content-Length or Host in Connection must not make the proxy drop them. */
    private static boolean isEndToEndFraming(String name) {
        return name.equalsIgnoreCase("content-length") || name.equalsIgnoreCase("host");
    }
}
