package dev.usher.proxy;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * How a backend's response head is passed on to the client: which kind of head it is, and how it is re-framed for
 * the client's connection (chunked or Content-Length or close-delimited, {@code Connection: close} or
 * {@code keep-alive}, HTTP/1.0 clients). Pure: it works on the head and the request's {@link RequestShape} only,
 * and its answers say what becomes of the two connections, so it is tested without a channel.
 *
 * <p>An HTTP/2 or HTTP/3 client takes the same heads (as a keep-alive HTTP/1.1 one); its codec drops the
 * connection-specific headers set here.
 */
final class ResponseFraming {
    private ResponseFraming() {
    }

    /** What a head from the backend is to the exchange. */
    enum Kind {
        /** The final answer: its head goes to the client, re-framed by {@link #finalHead}. */
        FINAL,
        /** 100 Continue, 103 Early Hints and the like: passed on by {@link #interimHead}; the final answer follows. */
        INTERIM,
        /** A 101 to a request that asked to switch protocols: both connections become a relay ({@link #switchHead}). */
        SWITCH,
        /** A 101 that nobody asked for: not an answer the client can take. */
        INVALID
    }

    /** What may become of each connection once the response is over. */
    enum Afterwards {
        KEEP_BOTH(true, true),
        CLOSE_CLIENT(false, true),
        CLOSE_BACKEND(true, false),
        CLOSE_BOTH(false, false);

        private final boolean clientStaysOpen;
        private final boolean backendReusable;

        Afterwards(boolean clientStaysOpen, boolean backendReusable) {
            this.clientStaysOpen = clientStaysOpen;
            this.backendReusable = backendReusable;
        }

        /** The client connection may carry another request after this response. */
        boolean clientStaysOpen() {
            return clientStaysOpen;
        }

        /** The backend connection may go back to its pool once the response was read in full. */
        boolean backendReusable() {
            return backendReusable;
        }

        private static Afterwards of(boolean clientStaysOpen, boolean backendReusable) {
            if (clientStaysOpen) {
                return backendReusable ? KEEP_BOTH : CLOSE_BACKEND;
            }
            return backendReusable ? CLOSE_CLIENT : CLOSE_BOTH;
        }
    }

    /** The kind of {@code response} (a head from the backend) for a request of {@code shape}. */
    static Kind kind(HttpResponse response, RequestShape shape) {
        int code = response.status().code();
        if (code == 101) {
            return shape.upgrade() && shape.keepAlive() ? Kind.SWITCH : Kind.INVALID;
        }
        return code >= 100 && code < 200 ? Kind.INTERIM : Kind.FINAL;
    }

    /**
     * The interim head (a {@link Kind#INTERIM}) as it goes to the client, hop-by-hop headers removed, or null for an
     * HTTP/1.0 client, which has no interim answers (RFC 9110 §15.2). Its own end marker from the backend's decoder
     * is the exchange's to drop either way.
     */
    static FullHttpResponse interimHead(HttpResponse response, RequestShape shape) {
        if (shape.http10()) {
            return null;
        }
        HttpHeaders headers = response.headers();
        HopByHop.strip(headers);
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, response.status(), Unpooled.EMPTY_BUFFER, headers,
                HttpHeaders.EMPTY_HEADERS.copy());
    }

    /**
     * Re-frames a final head in place for the client, and says what becomes of both connections after it.
     *
     * <ul>
     *   <li>Hop-by-hop headers go; the head is sent as HTTP/1.1.</li>
     *   <li>A body with neither Content-Length nor chunked coding ends when the backend closes, so that connection
     *       is not reused; to an HTTP/1.1 client it goes chunked, to an HTTP/1.0 one it ends with the connection.</li>
     *   <li>Chunked stays chunked for HTTP/1.1 (also the head of a HEAD answer, which says how the body would be
     *       framed); a coding before it ({@code gzip, chunked}) stays named, since the body stays so coded. An
     *       HTTP/1.0 client has no chunked coding: it gets the body as it comes and a closed connection after it.</li>
     *   <li>No body after a HEAD request, a 204 or a 304, whatever the head says.</li>
     *   <li>{@code Connection: close} when the client connection ends after this response (the client asked for it,
     *       HTTP/1.0 framing needs it, or {@code closing}); {@code keep-alive} for an HTTP/1.0 client it stays open
     *       for.</li>
     * </ul>
     *
     * @param method  the request's method (a HEAD answer has no body)
     * @param closing the client connection is to end after this response anyway (Usher is stopping)
     */
    static Afterwards finalHead(HttpResponse response, HttpMethod method, RequestShape shape, boolean closing) {
        HttpHeaders headers = response.headers();
        boolean backendReusable = HttpUtil.isKeepAlive(response);
        boolean chunked = HttpUtil.isTransferEncodingChunked(response);
        String transferEncoding = headers.get(HttpHeaderNames.TRANSFER_ENCODING);
        HopByHop.strip(headers);
        boolean http10 = shape.http10();
        boolean closeClient = closing || !shape.keepAlive();
        boolean headRequest = method.equals(HttpMethod.HEAD);
        int code = response.status().code();
        boolean bodyless = headRequest || code == 204 || code == 304;
        if (!bodyless && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
            if (!chunked) {
                backendReusable = false; // the backend ends this body by closing the connection
            }
            if (http10) {
                closeClient = true;
            } else {
                headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
        } else if (chunked && headRequest && !http10) {
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (chunked && !http10 && transferEncoding != null && !transferEncoding.trim().equalsIgnoreCase("chunked")) {
            // e.g. "gzip, chunked": the body stays gzip-coded on the way through, so the coding must stay named.
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, transferEncoding);
        }
        if (closeClient) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        response.setProtocolVersion(HttpVersion.HTTP_1_1);
        return Afterwards.of(!closeClient, backendReusable);
    }

    /**
     * Re-frames a 101 (a {@link Kind#SWITCH}) in place for the client: hop-by-hop headers go, except the protocol
     * switched to. True when that protocol is the websocket one (whose frames the relay follows at shutdown).
     */
    static boolean switchHead(HttpResponse response) {
        HttpHeaders headers = response.headers();
        CharSequence protocol = headers.get(HttpHeaderNames.UPGRADE);
        HopByHop.strip(headers);
        if (protocol != null) {
            headers.set(HttpHeaderNames.UPGRADE, protocol);
        }
        headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        return protocol != null && protocol.toString().trim().equalsIgnoreCase("websocket");
    }
}
