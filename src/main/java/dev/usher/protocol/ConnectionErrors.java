package dev.usher.protocol;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.quic.QuicChannel;

import java.lang.System.Logger.Level;
import java.net.SocketAddress;

/**
 * The end of an HTTP/2 or HTTP/3 connection's pipeline, so that connection errors are not reported as unhandled:
 * they are the client's (a flood of resets, a protocol error, a reset socket) and logged at debug level only.
 */
@ChannelHandler.Sharable
final class ConnectionErrors extends ChannelInboundHandlerAdapter {
    /**
     * The HTTP/2 codec passes its own errors on before it answers them (GOAWAY with the right code, then close), so
     * those are left to it: a close from here would send GOAWAY(NO_ERROR) first. Anything else closes the connection.
     */
    static final ConnectionErrors HTTP2 = new ConnectionErrors("HTTP/2", true);
    /** QUIC closes its connections itself, with the right error code. */
    static final ConnectionErrors HTTP3 = new ConnectionErrors("HTTP/3", false);

    private static final System.Logger LOG = System.getLogger(ConnectionErrors.class.getName());

    private final String protocol;
    private final boolean closeOnOtherErrors;

    private ConnectionErrors(String protocol, boolean closeOnOtherErrors) {
        this.protocol = protocol;
        this.closeOnOtherErrors = closeOnOtherErrors;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        SocketAddress client = ctx.channel() instanceof QuicChannel quic ? quic.remoteSocketAddress()
                : ctx.channel().remoteAddress();
        LOG.log(Level.DEBUG, "{0} connection from {1} failed: {2}", protocol, client, cause);
        if (closeOnOtherErrors && !(cause instanceof Http2Exception)) {
            ctx.close();
        }
    }
}
