package dev.usher.proxy;

import dev.usher.net.DrainEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.TimeUnit;

/**
 * After a protocol switch (101, e.g. a websocket) both connections carry opaque bytes: this relays them one way, from
 * its channel to {@code peer}, reading more only while the peer keeps up. Each side has one; when either closes, the
 * other is flushed and closed.
 *
 * <p>Shutdown ({@link DrainEvent}, on the client side): a websocket gets a close frame with status 1001 ("going
 * away"). The bytes are never decoded, so the relay from the backend follows the frame boundaries of what it passes
 * ({@link WebSocketFrames}); it stops at the next boundary (at once when between frames), writes the unmasked close
 * frame {@code 88 02 03 E9} to the client, and closes the backend connection (the backend sees the connection end
 * without a close frame of its own: the client's reply has nowhere to go). The client connection closes when the
 * client answers, or {@value #CLOSE_REPLY_MILLIS} ms later. An upgrade to another protocol cannot be told: both
 * sides are closed at once.
 *
 * <p>Threading: both relays of a pair run on the same event loop (the backend connection lives on the client's).
 */
final class RawRelay extends ChannelInboundHandlerAdapter {
    /** A close frame, status 1001 "going away", unmasked as frames from a server are (RFC 6455 §5.5.1, §7.4.1). */
    private static final byte[] GOING_AWAY = {(byte) 0x88, 0x02, 0x03, (byte) 0xE9};
    /** How long a client may take to answer the close frame before its connection is closed anyway. */
    static final long CLOSE_REPLY_MILLIS = 1000;

    private final Channel peer;
    /** On the backend side of a websocket: the frames on their way to the client. Null otherwise. */
    private final WebSocketFrames toClient;
    private ChannelHandlerContext ctx;
    /** Backend side: stop at the next frame boundary and send the close frame there. */
    private boolean stopping;
    /** Backend side: the close frame is out and this connection closed by us, not by the backend. */
    private boolean goneAway;
    /** Client side: the connection is being ended for shutdown. */
    private boolean draining;

    /** A relay that passes bytes as they come (the client side, or a backend side that is no websocket). */
    RawRelay(Channel peer) {
        this(peer, false);
    }

    /** @param websocketToClient true on the backend side of a websocket: follow its frames (for shutdown) */
    RawRelay(Channel peer, boolean websocketToClient) {
        this.peer = peer;
        this.toClient = websocketToClient ? new WebSocketFrames() : null;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().config().setAutoRead(false);
        if (!ctx.channel().isActive()) {
            closeOnFlush(peer);
        } else {
            ctx.read();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            // The HTTP decoder being removed may still hand over its end-of-message marker.
            ReferenceCountUtil.release(msg);
        } else if (goneAway || (draining && !peer.isActive())) {
            // The client's answer to the close frame (or bytes that have nowhere to go): the connection is done.
            buf.release();
            ctx.close();
        } else if (toClient == null) {
            peer.write(buf, peer.voidPromise());
        } else if (!stopping) {
            toClient.advance(buf, false);
            peer.write(buf, peer.voidPromise());
        } else {
            int passed = toClient.advance(buf, true);
            if (!toClient.atBoundary()) {
                peer.write(buf, peer.voidPromise());
                return;
            }
            peer.write(buf.retainedSlice(buf.readerIndex(), passed), peer.voidPromise());
            buf.release();
            goAway();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        peer.flush();
        if (!goneAway && peer.isWritable()) {
            ctx.read();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            peer.read();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!goneAway) {
            closeOnFlush(peer);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            // No traffic either way for the websocket idle timeout: close both sides.
            ctx.close();
            closeOnFlush(peer);
            return;
        }
        if (evt instanceof DrainEvent drain) {
            drain.claimUpgraded();
            drain();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Client side, at shutdown: a websocket is sent a close frame at the next frame boundary; others are cut. */
    private void drain() {
        if (draining) {
            return;
        }
        draining = true;
        RawRelay backendSide = peer.pipeline().get(RawRelay.class);
        if (backendSide == null || backendSide.toClient == null || !peer.isActive()) {
            ctx.close();
            closeOnFlush(peer);
            return;
        }
        backendSide.stopAtFrameBoundary();
    }

    /** Backend side of a websocket: sends the close frame now if between frames, else once this frame is passed. */
    private void stopAtFrameBoundary() {
        stopping = true;
        if (toClient.atBoundary()) {
            goAway();
        }
    }

    private void goAway() {
        goneAway = true;
        if (!toClient.closeSeen()) {
            peer.write(Unpooled.wrappedBuffer(GOING_AWAY), peer.voidPromise());
        }
        peer.flush();
        ctx.close();
        Channel client = peer;
        client.eventLoop().schedule(() -> {
            client.close();
        }, CLOSE_REPLY_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    static void closeOnFlush(Channel ch) {
        if (ch.isActive()) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
