package dev.usher.protocol;

import dev.usher.net.DrainEvent;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * Ends an HTTP/3 connection gracefully when Usher stops ({@link DrainEvent}): sends GOAWAY on the control stream
 * naming the first request stream it will not serve (RFC 9114 §5.2), lets the open request streams finish, then
 * closes the QUIC connection with H3_NO_ERROR. Usher's grace period bounds the wait (the event loops end after it).
 *
 * <p>Counts the connection's open request streams as they are set up ({@link #streamOpened}). One instance per QUIC
 * connection; threading: the connection's event loop only (its streams share it).
 */
final class Http3GracefulClose extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(Http3GracefulClose.class.getName());

    private QuicChannel connection;
    private int openStreams;
    /** One past the highest client request stream seen: client-initiated bidirectional ids go 0, 4, 8... */
    private long nextStreamId;
    private boolean draining;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        connection = (QuicChannel) ctx.channel();
    }

    /** A request stream was opened by the client; it counts until it closes. */
    void streamOpened(QuicStreamChannel stream) {
        openStreams++;
        nextStreamId = Math.max(nextStreamId, stream.streamId() + 4);
        stream.closeFuture().addListener(f -> streamClosed());
    }

    private void streamClosed() {
        openStreams--;
        if (draining && openStreams == 0) {
            closeNow();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof DrainEvent drain) {
            drain.claim(openStreams);
            draining = true;
            QuicStreamChannel control = Http3.getLocalControlStream(connection);
            if (control != null && control.isActive()) {
                control.writeAndFlush(new DefaultHttp3GoAwayFrame(nextStreamId)).addListener(f -> {
                    if (!f.isSuccess()) {
                        LOG.log(System.Logger.Level.DEBUG, "HTTP/3 GOAWAY not sent: {0}", f.cause());
                    }
                });
            }
            if (openStreams == 0) {
                closeNow();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void closeNow() {
        if (connection.isActive()) {
            connection.close(true, Http3ErrorCode.H3_NO_ERROR.code(), Unpooled.EMPTY_BUFFER);
        }
    }
}
