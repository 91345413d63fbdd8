package dev.usher.protocol;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;

/**
 * Resets a stream that broke the protocol with the error code the RFC names for what it did. Netty reports a stream
 * error to the stream's pipeline and only then resets the stream with the error's code, but a handler that closes
 * the stream channel on the way (the proxy does, for any failure) makes it a RST_STREAM(CANCEL) instead, and none at
 * all when the client had already ended its side: such a stream stayed half-open, unanswered, holding one of the
 * connection's concurrent-stream slots until the connection closed (h2spec 8.1.2.3/2, a request without
 * {@code :method}). Placed right after the frame-to-HTTP codec, so that a request the codec cannot convert (RFC
 * 9113 §8.1.1: malformed) is reset with PROTOCOL_ERROR too. Other failures (a write, the backend) go on to the proxy.
 */
@ChannelHandler.Sharable
final class Http2StreamErrors extends ChannelInboundHandlerAdapter {
    static final Http2StreamErrors INSTANCE = new Http2StreamErrors();
    static final String NAME = "h2-stream-errors";
    private static final System.Logger LOG = System.getLogger(Http2StreamErrors.class.getName());

    private Http2StreamErrors() {
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Http2Error code = codeFor(cause);
        if (code == null) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "HTTP/2 stream {0} reset with {1}: {2}", ctx.channel(), code, cause);
        ctx.writeAndFlush(new DefaultHttp2ResetFrame(code)).addListener(ChannelFutureListener.CLOSE);
    }

    /** The code to reset with, or null when {@code cause} is not the client's protocol error. */
    static Http2Error codeFor(Throwable cause) {
        Http2Exception http2 = Http2CodecUtil.getEmbeddedHttp2Exception(cause);
        if (http2 != null) {
            return http2.error();
        }
        return cause instanceof DecoderException ? Http2Error.PROTOCOL_ERROR : null;
    }
}
