package dev.usher.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;

import java.nio.charset.StandardCharsets;

/**
 * Rapid reset (CVE-2023-44487) over HTTP/3: each request stream may start a backend exchange, and a stream the client
 * cancels leaves that exchange abandoned, its backend connection closed. QUIC returns stream credit as fast as streams
 * end, so nothing else bounds the rate. As HTTP/2's codec does with RST_STREAM, more than {@link #MAX_UNANSWERED}
 * request streams ending without a complete answer within {@link #WINDOW_NANOS} close the connection with
 * H3_EXCESSIVE_LOAD. Counted: streams the client cancelled (RESET_STREAM, STOP_SENDING) and streams Usher ended
 * early because of them; a browser cancels a handful when the user navigates away.
 *
 * <p>One instance per QUIC connection; {@link #streamHandler()} gives each request stream its tracker. Threading:
 * the connection's event loop (its streams share it).
 */
final class Http3CancelLimit {
    static final int MAX_UNANSWERED = 200;
    static final long WINDOW_NANOS = 30_000_000_000L;
    private static final System.Logger LOG = System.getLogger(Http3CancelLimit.class.getName());

    private final QuicChannel connection;
    private long windowStart = System.nanoTime();
    private int unanswered;

    Http3CancelLimit(QuicChannel connection) {
        this.connection = connection;
    }

    /** A tracker for one request stream: it sits after the HTTP/3 conversion and sees the answer go out. */
    ChannelHandler streamHandler() {
        return new StreamTracker();
    }

    private void streamEndedUnanswered() {
        long now = System.nanoTime();
        if (now - windowStart > WINDOW_NANOS) {
            windowStart = now;
            unanswered = 0;
        }
        if (++unanswered > MAX_UNANSWERED && connection.isActive()) {
            LOG.log(System.Logger.Level.INFO, "HTTP/3: closing the connection from {0}: more than {1} request "
                    + "streams cancelled within 30 s", connection.remoteSocketAddress(), MAX_UNANSWERED);
            connection.close(true, Http3ErrorCode.H3_EXCESSIVE_LOAD.code(),
                    Unpooled.copiedBuffer("too many cancelled streams", StandardCharsets.US_ASCII));
        }
    }

    /** Notes whether the stream's answer was written in full; a stream that closes without it counts. */
    private final class StreamTracker extends ChannelDuplexHandler {
        private boolean answered;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof LastHttpContent) {
                promise = promise.unvoid();
                promise.addListener(f -> answered |= f.isSuccess());
            }
            ctx.write(msg, promise);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (!answered) {
                streamEndedUnanswered();
            }
            ctx.fireChannelInactive();
        }
    }
}
