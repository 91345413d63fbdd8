package dev.usher.stream;

import dev.usher.net.ClientAddress;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Reads the PROXY protocol header (version 1 or 2, Netty's decoder) that a trusted load balancer starts a connection
 * with, keeps the client address it names, then puts the listener's own pipeline in place and starts it as if the
 * connection had just become active; the bytes after the header go on to it. A malformed header, anything else, or
 * no header within {@value #HEADER_SECONDS} seconds closes the connection. A {@code LOCAL} header (the load
 * balancer's own health check) keeps the connection's own addresses.
 *
 * <p>Only {@link ProxyHeaderGate} refers to this class, and only for a connection from a trusted network, so Netty's
 * PROXY protocol classes are not loaded unless such a connection arrives. One per connection; its event loop only.
 */
final class ProxyHeaderReader extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(ProxyHeaderReader.class.getName());
    static final long HEADER_SECONDS = 10;

    private final ChannelHandler next;
    private ScheduledFuture<?> timer;
    private boolean done;

    private ProxyHeaderReader(ChannelHandler next) {
        this.next = next;
    }

    static void install(ChannelPipeline pipeline, ChannelHandler next) {
        pipeline.addLast("proxy-header-decoder", new HAProxyMessageDecoder())
                .addLast("proxy-header", new ProxyHeaderReader(next));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> fail(ctx, "no PROXY header within " + HEADER_SECONDS + " s"),
                HEADER_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read(); // Usher's listeners read only when asked; the header must be asked for
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HAProxyMessage header)) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        try {
            InetSocketAddress client = clientOf(header);
            if (client != null) {
                ctx.channel().attr(ClientAddress.FROM_PROXY_HEADER).set(client);
            }
        } finally {
            header.release();
        }
        done = true;
        timer.cancel(false);
        // The listener's pipeline after this one, started as a fresh connection; then the decoder leaves and hands
        // it whatever followed the header.
        ctx.pipeline().addAfter(ctx.name(), null, next);
        ctx.fireChannelActive();
        ctx.pipeline().remove(this);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!done && !ctx.channel().config().isAutoRead()) {
            ctx.read(); // the header came in pieces
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, "bad PROXY header: " + cause.getMessage());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (timer != null) {
            timer.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        if (done) {
            return;
        }
        done = true;
        LOG.log(Level.DEBUG, "closing {0}: {1}", ctx.channel().remoteAddress(), why);
        ctx.close();
    }

    /** The source the header names, or null for LOCAL and UNKNOWN (keep the connection's own). */
    private static InetSocketAddress clientOf(HAProxyMessage header) {
        if (header.command() != HAProxyCommand.PROXY || header.sourceAddress() == null) {
            return null;
        }
        HAProxyProxiedProtocol.AddressFamily family = header.proxiedProtocol().addressFamily();
        if (family != HAProxyProxiedProtocol.AddressFamily.AF_IPv4
                && family != HAProxyProxiedProtocol.AddressFamily.AF_IPv6) {
            return null;
        }
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(header.sourceAddress());
        if (bytes == null) {
            return null;
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(bytes), header.sourcePort());
        } catch (java.net.UnknownHostException e) {
            return null;
        }
    }
}
