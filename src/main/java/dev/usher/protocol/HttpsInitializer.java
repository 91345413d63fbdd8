package dev.usher.protocol;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;

/**
 * The child handler of the HTTPS listener: counts the connection against {@code limits.connections} (shared with
 * the plain listener), then hands it to the TLS layer, which picks the certificate and, after the handshake, the
 * HTTP version.
 */
public final class HttpsInitializer extends ChannelInitializer<Channel> {
    private final ConnectionLimiter limiter;
    private final ChannelHandler tls;

    /** @param tls a sharable handler (a {@code ChannelInitializer}) that sets up TLS on each connection */
    public HttpsInitializer(ConnectionLimiter limiter, ChannelHandler tls) {
        this.limiter = limiter;
        this.tls = tls;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!limiter.admit(ch)) {
            ch.close();
            return;
        }
        ch.pipeline().addLast("first-read", FirstRead.INSTANCE).addLast("tls-setup", tls);
    }

    /**
     * Usher's listeners accept with auto-read off (reads follow backpressure); the ClientHello must still be asked
     * for once. Later reads are asked for by the TLS handlers themselves.
     */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class FirstRead extends io.netty.channel.ChannelInboundHandlerAdapter {
        static final FirstRead INSTANCE = new FirstRead();

        @Override
        public void channelActive(io.netty.channel.ChannelHandlerContext ctx) {
            ctx.pipeline().remove(this);
            ctx.fireChannelActive();
            if (!ctx.channel().config().isAutoRead()) {
                ctx.read();
            }
        }
    }
}
