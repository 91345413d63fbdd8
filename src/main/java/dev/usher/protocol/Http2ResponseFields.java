package dev.usher.protocol;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An HTTP/1.1 response head as HTTP/2 fields, the way Netty's {@link HttpConversionUtil#toHttp2Headers} makes them,
 * without its allocations for the usual head: Netty lower-cases every name into a new {@link AsciiString} (a
 * backend's {@code Content-Type}, {@code Date}, {@code Server}...) and builds a map of the names the Connection
 * header lists, per response. Here the names a response usually carries map to shared lower-case constants.
 *
 * <p>Only the plain case is done here: a head with a Connection header, or with a name Netty's conversion drops or
 * treats specially (connection-specific names, Host, its extension headers, TE, Cookie), gets null, for the caller
 * to use Netty's conversion. For every other head the fields are the same, in the same order.
 */
final class Http2ResponseFields {
    /** Netty's list of names never carried over (HttpConversionUtil's blacklist), and the two it rewrites. */
    private static final List<AsciiString> NOT_PLAIN = List.of(HttpHeaderNames.CONNECTION,
            HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.PROXY_CONNECTION, HttpHeaderNames.TRANSFER_ENCODING,
            HttpHeaderNames.HOST, HttpHeaderNames.UPGRADE,
            HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text(),
            HttpConversionUtil.ExtensionHeaderNames.SCHEME.text(),
            HttpConversionUtil.ExtensionHeaderNames.PATH.text(),
            HttpConversionUtil.ExtensionHeaderNames.PROTOCOL.text(),
            HttpHeaderNames.TE, HttpHeaderNames.COOKIE);
    /** Names seen on responses, lower case. */
    private static final List<AsciiString> COMMON = List.of(HttpHeaderNames.CONTENT_TYPE,
            HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.DATE, HttpHeaderNames.SERVER, HttpHeaderNames.ETAG,
            HttpHeaderNames.LAST_MODIFIED, HttpHeaderNames.CACHE_CONTROL, HttpHeaderNames.EXPIRES,
            HttpHeaderNames.VARY, HttpHeaderNames.CONTENT_ENCODING, HttpHeaderNames.CONTENT_LANGUAGE,
            HttpHeaderNames.CONTENT_DISPOSITION, HttpHeaderNames.CONTENT_RANGE, HttpHeaderNames.ACCEPT_RANGES,
            HttpHeaderNames.AGE, HttpHeaderNames.LOCATION, HttpHeaderNames.SET_COOKIE, HttpHeaderNames.PRAGMA,
            HttpHeaderNames.RETRY_AFTER, HttpHeaderNames.WWW_AUTHENTICATE, HttpHeaderNames.ALT_SVC,
            HttpHeaderNames.CONTENT_SECURITY_POLICY, HttpHeaderNames.X_FRAME_OPTIONS,
            HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, HttpHeaderNames.ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS,
            HttpHeaderNames.ACCESS_CONTROL_EXPOSE_HEADERS, HttpHeaderNames.ACCESS_CONTROL_MAX_AGE,
            AsciiString.cached("link"), AsciiString.cached("strict-transport-security"),
            AsciiString.cached("x-content-type-options"), AsciiString.cached("referrer-policy"),
            AsciiString.cached("x-powered-by"), AsciiString.cached("x-request-id"),
            AsciiString.cached("permissions-policy"), AsciiString.cached("x-xss-protection"));
    /**
     * Every name of both lists, in the slot of its case-insensitive hash, so that a name is found without a copy in
     * whatever case it comes. Written only while the class initializes.
     */
    private static final AsciiString[] KNOWN = known(512);

    private Http2ResponseFields() {
    }

    private static AsciiString[] known(int slots) {
        AsciiString[] table = new AsciiString[slots];
        for (List<AsciiString> names : List.of(NOT_PLAIN, COMMON)) {
            for (AsciiString name : names) {
                int slot = AsciiString.hashCode(name) & (slots - 1);
                if (table[slot] == null) {
                    table[slot] = name;
                } else if (names == NOT_PLAIN) {
                    // a name that must send the head to Netty's conversion has to be found
                    throw new IllegalStateException(name + " shares a slot with " + table[slot]);
                }
            }
        }
        return table;
    }

    /**
     * The HTTP/2 fields of a final response head ({@code :status} first, then its headers in order), or null when
     * it is not a plain one (see the class comment).
     */
    static Http2Headers of(HttpResponse response) {
        HttpHeaders in = response.headers();
        if (in.contains(HttpHeaderNames.CONNECTION)) {
            return null;
        }
        Http2Headers out = new DefaultHttp2Headers(true, in.size());
        out.status(response.status().codeAsText());
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = in.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> field = it.next();
            AsciiString name = lowerCase(field.getKey());
            if (NOT_PLAIN.contains(name)) {
                return null;
            }
            out.add(name, field.getValue());
        }
        return out;
    }

    /** The name in lower case: a shared constant when it is a known one, else a copy, as Netty makes it. */
    static AsciiString lowerCase(CharSequence name) {
        AsciiString known = KNOWN[AsciiString.hashCode(name) & (KNOWN.length - 1)];
        if (known != null && known.contentEqualsIgnoreCase(name)) {
            return known;
        }
        return AsciiString.of(name).toLowerCase();
    }
}
