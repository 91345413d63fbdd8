package dev.usher.stream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * The backend channel's end of a {@link TcpRelay}: hands what the backend sends, its writability and its end to the
 * relay. One per connect attempt; runs on the client's event loop.
 */
final class RelayBackendSide extends ChannelInboundHandlerAdapter {
    private final TcpRelay relay;

    RelayBackendSide(TcpRelay relay) {
        this.relay = relay;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            relay.fromBackend(buf);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        relay.backendReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        relay.backendWritable();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            relay.backendEnded(ctx.channel(), false);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        relay.backendEnded(ctx.channel(), true);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        relay.backendFailed(ctx.channel(), cause);
    }
}
