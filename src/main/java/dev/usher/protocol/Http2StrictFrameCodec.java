package dev.usher.protocol;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;


/**
 * Netty's frame codec, strict about frames on client streams that are no longer open. Netty answers HEADERS or DATA
 * on a client stream id that is below the highest one used and not open with RST_STREAM(STREAM_CLOSED), since it
 * cannot tell the cases apart; the RFC makes most of them connection errors. This codec remembers the client streams
 * closed lately and tells them apart:
 * <ul>
 *   <li>a stream Usher reset: the client may not have seen the reset yet and still send its trailers or body, so
 *       Netty's stream error stands (RFC 9113 §5.1, "closed", a frame in flight);</li>
 *   <li>a stream both sides ended normally, or that the client reset: a connection error STREAM_CLOSED (§5.1);</li>
 *   <li>an id never opened (a client going back in ids), or one closed so long ago that it is no longer
 *       remembered: a connection error PROTOCOL_ERROR (§5.1.1).</li>
 * </ul>
 * And HEADERS ending a stream a second time (the client had ended it already) is STREAM_CLOSED, not PROTOCOL_ERROR.
 * One instance per connection, used on its event loop only.
 */
final class Http2StrictFrameCodec extends Http2FrameCodec {
    /**
     * Closed client streams remembered. Usher sends at most {@link Http2Pipeline#MAX_SENT_RST_FRAMES} resets in 30 s
     * (then the connection ends), so this covers every stream it reset lately.
     */
    static final int REMEMBERED = 1024;

    /** The recently closed client streams: their ids in a ring (0: free), and whether Usher reset each. */
    private final int[] closedIds = new int[REMEMBERED];
    private final boolean[] closedByReset = new boolean[REMEMBERED];
    private int nextSlot;

    private Http2StrictFrameCodec(Http2ConnectionEncoder encoder, Http2ConnectionDecoder decoder,
                                  Http2Settings settings, boolean decoupleCloseAndGoAway, boolean flushPreface) {
        super(encoder, decoder, settings, decoupleCloseAndGoAway, flushPreface);
        Http2Connection connection = connection();
        connection.addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamClosed(Http2Stream stream) {
                if (connection.remote().isValidStreamId(stream.id())) {
                    remember(stream.id(), stream.isResetSent());
                }
            }
        });
    }

    // A ring of primitives rather than a map: closing a stream is on every request's path and allocates nothing.
    private void remember(int id, boolean resetByUs) {
        closedIds[nextSlot] = id;
        closedByReset[nextSlot] = resetByUs;
        nextSlot = (nextSlot + 1) % REMEMBERED;
    }

    /** Whether Usher reset closed stream {@code id}; null when it is not remembered (only on the error path). */
    private Boolean resetByUs(int id) {
        for (int i = 0; i < REMEMBERED; i++) {
            if (closedIds[i] == id) {
                return closedByReset[i];
            }
        }
        return null;
    }

    /** A server-side builder of this codec, with all of Netty's options. */
    static Http2FrameCodecBuilder forServer() {
        return new Builder();
    }

    @Override
    public void onError(ChannelHandlerContext ctx, boolean outbound, Throwable cause) {
        Http2Exception strict = outbound ? null : strictErrorFor(Http2CodecUtil.getEmbeddedHttp2Exception(cause));
        super.onError(ctx, outbound, strict == null ? cause : strict);
    }

    /**
     * What {@code e} should be instead: a connection error for a stream error on a closed stream, STREAM_CLOSED for
     * a second HEADERS with END_STREAM on a half-closed (remote) stream (RFC 9113 §5.1; Netty checks the header count
     * first and says PROTOCOL_ERROR, recognised by its message); or null to keep {@code e}.
     */
    private Http2Exception strictErrorFor(Http2Exception e) {
        if (!(e instanceof Http2Exception.StreamException stream)) {
            return null;
        }
        int id = stream.streamId();
        Http2Connection connection = connection();
        Http2Stream open = connection.stream(id);
        if (open != null && open.state() == Http2Stream.State.HALF_CLOSED_REMOTE
                && stream.error() == Http2Error.PROTOCOL_ERROR
                && String.valueOf(stream.getMessage()).contains("received too many headers")) {
            return Http2Exception.streamError(id, Http2Error.STREAM_CLOSED, stream,
                    "HEADERS on stream %d, which the client had ended", id);
        }
        if (open != null || stream.error() != Http2Error.STREAM_CLOSED || !connection.remote().isValidStreamId(id)) {
            return null;
        }
        Boolean resetByUs = resetByUs(id);
        if (resetByUs == null) {
            return Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR,
                    "a frame on stream %d, below the last stream opened (%d), which is not in use", id,
                    connection.remote().lastStreamCreated());
        }
        return resetByUs ? null
                : Http2Exception.connectionError(Http2Error.STREAM_CLOSED, "a frame on stream %d, which is closed", id);
    }

    private static final class Builder extends Http2FrameCodecBuilder {
        Builder() {
            server(true);
        }

        @Override
        protected Http2FrameCodec build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                                        Http2Settings initialSettings) {
            Http2StrictFrameCodec codec = new Http2StrictFrameCodec(encoder, decoder, initialSettings,
                    decoupleCloseAndGoAway(), flushPreface());
            codec.gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis());
            return codec;
        }
    }
}
