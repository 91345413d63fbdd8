package dev.usher.proxy;

import dev.usher.net.ClientAddress;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.AsciiString;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;

import java.net.SocketAddress;
import java.util.List;
import java.util.stream.Stream;

/**
 * What differs between an HTTP/2 stream and an HTTP/3 (QUIC) request stream for {@link Http2StreamProxyHandler}:
 * the extension headers Netty's conversion adds, where the client's address is, and how a stream whose request body
 * is not wanted is ended once its answer is out. Everything else (routing, the exchange, backpressure through the
 * child channel's auto-read and writability) is the same.
 */
public enum StreamProtocol {
    /** A child channel of an HTTP/2 connection ({@code Http2StreamChannel}). */
    HTTP2 {
        @Override
        void removeConversionHeaders(HttpHeaders headers) {
            for (int i = 0; i < H2_CONVERSION_HEADERS.size(); i++) {
                headers.remove(H2_CONVERSION_HEADERS.get(i));
            }
        }

        @Override
        SocketAddress clientAddress(Channel stream) {
            return stream.parent() != null ? ClientAddress.of(stream.parent()) : stream.remoteAddress();
        }

        /** RST_STREAM(NO_ERROR) tells the client to stop sending without discarding the answer (RFC 9113 §8.1). */
        @Override
        void endAfterAnswer(ChannelHandlerContext ctx, Future<? super Void> written) {
            Channel stream = ctx.channel();
            boolean open = stream instanceof Http2StreamChannel h2 && h2.stream().state() != Http2Stream.State.CLOSED;
            if (written.isSuccess() && stream.isActive() && open) {
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR))
                        .addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.close();
            }
        }
    },
    /** A bidirectional QUIC stream of an HTTP/3 connection ({@code QuicStreamChannel}). */
    HTTP3 {
        @Override
        void removeConversionHeaders(HttpHeaders headers) {
            for (io.netty.handler.codec.http3.HttpConversionUtil.ExtensionHeaderNames name
                    : io.netty.handler.codec.http3.HttpConversionUtil.ExtensionHeaderNames.values()) {
                headers.remove(name.text());
            }
        }

        /** The UDP peer: a QUIC connection's own {@code remoteAddress()} is a connection ID, not an IP. */
        @Override
        SocketAddress clientAddress(Channel stream) {
            Channel parent = stream.parent();
            return parent instanceof QuicChannel quic ? quic.remoteSocketAddress() : stream.remoteAddress();
        }

        /**
         * STOP_SENDING(H3_NO_ERROR) asks the client to stop sending the body (RFC 9114 §4.1); the answer, already
         * ended with FIN, stays. Then the stream is released.
         */
        @Override
        void endAfterAnswer(ChannelHandlerContext ctx, Future<? super Void> written) {
            if (written.isSuccess() && ctx.channel() instanceof QuicStreamChannel quic && quic.isActive()
                    && !quic.isInputShutdown()) {
                quic.shutdownInput(Http3ErrorCode.H3_NO_ERROR.code()).addListener(f -> ctx.close());
            } else {
                ctx.close();
            }
        }
    };

    /** Netty's HTTP/2 conversion headers, listed once: {@code values()} copies its array at every call. */
    private static final List<AsciiString> H2_CONVERSION_HEADERS =
            Stream.of(HttpConversionUtil.ExtensionHeaderNames.values())
                    .map(HttpConversionUtil.ExtensionHeaderNames::text).toList();

    /**
     * Set on a request stream whose request is malformed in a way the HTTP-object conversion hides (for HTTP/3: a
     * connection-specific field, RFC 9114 §4.2): the value names the reason; the request is answered 400.
     */
    public static final AttributeKey<String> MALFORMED = AttributeKey.valueOf("usher.malformedRequest");

    /**
     * True when a request head may come without saying whether a body follows, so that the handler waits for the
     * stream's next event before deciding. HTTP/2's codec says it (END_STREAM on HEADERS gives a full request);
     * HTTP/3's codec passes every head on alone, and the end of the stream (QUIC FIN) after it.
     */
    boolean headAloneMayEndTheStream() {
        return this == HTTP3;
    }

    /**
     * True when the stream exists before its request head is complete, so that the head needs a timeout of its own:
     * an HTTP/2 stream is opened by a whole HEADERS block; a QUIC stream by its first byte, after which a client may
     * trickle the HEADERS frame in (each packet keeping the connection from idling out).
     */
    boolean headMayTrickle() {
        return this == HTTP3;
    }

    /**
     * The request head did not come in whole within {@code timeouts.header}: the stream is reset, both ways, with
     * H3_REQUEST_INCOMPLETE (RFC 9114 §8.1); there is no request to answer.
     */
    void headTimedOut(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof QuicStreamChannel quic && quic.isActive()) {
            quic.shutdown(Http3ErrorCode.H3_REQUEST_INCOMPLETE.code()).addListener(f -> ctx.close());
        } else {
            ctx.close();
        }
    }

    /** True when the client has ended its side of the stream (for HTTP/3: FIN received, maybe not yet passed on). */
    boolean inputEnded(Channel stream) {
        return stream instanceof QuicStreamChannel quic && quic.isInputShutdown();
    }

    /** Removes the headers Netty's frame-to-HTTP conversion adds (stream id, scheme...): they must not reach backends. */
    abstract void removeConversionHeaders(HttpHeaders headers);

    /** The client's IP and port, for rules, logs and forwarding headers. */
    abstract SocketAddress clientAddress(Channel stream);

    /** After a complete local answer given while the request body was still coming: tell the client to stop. */
    abstract void endAfterAnswer(ChannelHandlerContext ctx, Future<? super Void> written);
}
