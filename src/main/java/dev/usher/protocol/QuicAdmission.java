package dev.usher.protocol;

import dev.usher.observe.OpenConnections;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Counts a QUIC connection against {@code limits.connections} (shared with the TCP listeners) and in the open
 * connection metrics only once its handshake is complete ({@code channelActive}), or closes it when the cap is
 * reached. Netty sets a QUIC connection up at its first Initial packet, before the client has shown it can answer
 * from its address: counted then, Initial packets from a spoofed source (which never complete the handshake) held
 * the slots of real TCP and QUIC clients until the handshake timed out. Until then the connection counts as a
 * handshake under way ({@link QuicHandshakes}), which bounds them through Retry ({@link QuicRetryTokens}).
 *
 * <p>The first handler of a QUIC connection; one instance per connection, on its event loop.
 */
final class QuicAdmission extends ChannelInboundHandlerAdapter {
    private final ConnectionLimiter limiter;
    private final OpenConnections open;
    private final QuicHandshakes handshakes;
    private boolean handshaking;

    QuicAdmission(ConnectionLimiter limiter, OpenConnections open, QuicHandshakes handshakes) {
        this.limiter = limiter;
        this.open = open;
        this.handshakes = handshakes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        handshaking = true;
        handshakes.started();
        ctx.channel().closeFuture().addListener(f -> handshakeOver());
    }

    private void handshakeOver() {
        if (handshaking) {
            handshaking = false;
            handshakes.ended();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        handshakeOver();
        // A QUIC connection's own remote address is a connection ID; the client's is the UDP peer's.
        java.net.SocketAddress peer = ctx.channel() instanceof io.netty.handler.codec.quic.QuicChannel quic
                ? quic.remoteSocketAddress() : ctx.channel().remoteAddress();
        if (!limiter.admit(ctx.channel(), peer)) {
            ctx.close();
            return;
        }
        open.track(ctx.channel());
        ctx.pipeline().remove(this);
        ctx.fireChannelActive();
    }
}
