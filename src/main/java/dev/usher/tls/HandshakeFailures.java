package dev.usher.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLException;

/**
 * Sits right after the {@code SslHandler} until the handshake ends: a failed handshake (old protocol version, no
 * common cipher, timeout, garbage after the hello) is logged once at FINE and the connection closed, instead of
 * reaching the after-TLS handler or the pipeline's tail as an error. Internet scanners cause these all day.
 * Removes itself once the handshake succeeds, so later errors go where they belong.
 */
final class HandshakeFailures extends ChannelInboundHandlerAdapter {
    static final String NAME = "tls-handshake-failures";
    private static final System.Logger LOG = System.getLogger(HandshakeFailures.class.getName());

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SslHandshakeCompletionEvent completion) {
            if (completion.isSuccess()) {
                ctx.pipeline().remove(this);
            } else {
                LOG.log(System.Logger.Level.DEBUG, "TLS: handshake with {0} for {1} failed: {2}",
                        ctx.channel().remoteAddress(), ctx.channel().attr(TlsHandshakeRouter.SERVER_NAME).get(),
                        String.valueOf(completion.cause()));
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable tls = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (tls instanceof SSLException) {
            ctx.close(); // the completion event above has logged it
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }
}
