package dev.usher.whoami;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.util.ReferenceCountUtil;

/**
 * Echoes every (aggregated) text and binary message back unchanged, answers pings with pongs, and answers a close
 * frame with the same close frame before closing the connection.
 *
 * <p>Auto-read is off: after a read burst the echoes are flushed and the next read is requested only while the
 * channel is writable; otherwise it waits for writability to return.
 */
final class WebsocketEcho extends ChannelInboundHandlerAdapter {
    private boolean readWanted;
    private boolean closing;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
        } else if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
            ctx.write(msg).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else if (msg instanceof PingWebSocketFrame ping) {
            ctx.write(new PongWebSocketFrame(ping.content())).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else if (msg instanceof CloseWebSocketFrame close) {
            closing = true;
            ctx.writeAndFlush(close).addListener(ChannelFutureListener.CLOSE);
        } else {
            ReferenceCountUtil.release(msg); // pongs and anything unexpected
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
        readWhenWritable(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (readWanted && ctx.channel().isWritable()) {
            readWhenWritable(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof TooLongFrameException && !closing) {
            closing = true;
            ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.MESSAGE_TOO_BIG))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    private void readWhenWritable(ChannelHandlerContext ctx) {
        if (closing) {
            return;
        }
        readWanted = !ctx.channel().isWritable();
        if (!readWanted) {
            ctx.read();
        }
    }
}
