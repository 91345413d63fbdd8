package dev.usher.protocol;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.quic.QuicException;

/**
 * Ends a request stream on a QUIC error of its own: the client reset it (RESET_STREAM: QuicStreamResetException on
 * read) or stopped it (STOP_SENDING: a failed write). Netty's {@code Http3FrameToHttpObjectCodec} only logs these
 * and keeps the stream open, and QUIC gives the client new stream credit all the same, so each cancelled stream
 * would stay in memory with its exchange until the whole connection ends. Closing it here lets the proxy handler
 * abandon its exchange and {@link Http3CancelLimit} count it.
 *
 * <p>Sits on a request stream before the HTTP/3 conversion. Stateless: one shared instance.
 */
@ChannelHandler.Sharable
final class Http3StreamErrors extends ChannelInboundHandlerAdapter {
    static final Http3StreamErrors INSTANCE = new Http3StreamErrors();
    private static final System.Logger LOG = System.getLogger(Http3StreamErrors.class.getName());

    private Http3StreamErrors() {
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof QuicException) {
            LOG.log(System.Logger.Level.DEBUG, "HTTP/3 request stream {0} ended: {1}", ctx.channel(), cause);
            ctx.close();
            return;
        }
        ctx.fireExceptionCaught(cause);
    }
}
