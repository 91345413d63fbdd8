package dev.usher.server;

import dev.usher.net.Transport;
import dev.usher.config.ListenAddress;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannelRecvByteBufAllocator;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketException;

/**
 * One bound TCP listener. Accepted connections are spread over the same event loops that serve them; accept failures
 * (out of descriptors) pause accepting briefly and are logged in one line ({@link AcceptErrors}).
 */
public final class HttpListener implements AutoCloseable {
    /**
     * Connections accepted per wake-up of the listening socket. The listener shares its event loop with the
     * connections it accepts, and a loop turn serving many busy connections can take milliseconds; Netty's epoll
     * server channel stops after ONE accept per turn (its "maybe more data" test compares the new descriptor with
     * 1), so a burst of 1,000 connects drained at about 80 per second and clients waited seconds in the accept queue
     * (BENCHMARKS.md, Scaling). Accepting until the queue is empty or this many were taken keeps a burst short
     * without letting the listener hold the loop for long (an accept and pipeline set-up cost a few microseconds).
     */
    static final int ACCEPTS_PER_TURN = 64;

    private final Channel channel;

    private HttpListener(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds {@code address}; throws {@link ListenException} with a plain explanation when it cannot. Connections are
     * accepted once {@link #startAccepting} is called (until then the kernel queues them): a reload binds its new
     * listeners before the config they serve is in place.
     */
    public static HttpListener bind(ListenAddress address, Transport transport, EventLoopGroup loops,
                                    ChannelHandler initializer) throws ListenException {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loops)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, acceptAllocator())
                .option(ChannelOption.AUTO_READ, false)
                .handler(new AcceptErrors(address.toString(), OpenFileLimit.ofThisProcess()))
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(initializer);
        InetSocketAddress socket = address.anyHost()
                ? new InetSocketAddress(address.port())
                : new InetSocketAddress(address.host(), address.port());
        try {
            return new HttpListener(bootstrap.bind(socket).syncUninterruptibly().channel());
        } catch (Exception e) {
            throw new ListenException(explain(address, e), e);
        }
    }

    /** Takes up to {@link #ACCEPTS_PER_TURN} connections per wake-up, stopping early only when none is left. */
    static ServerChannelRecvByteBufAllocator acceptAllocator() {
        ServerChannelRecvByteBufAllocator allocator = new ServerChannelRecvByteBufAllocator();
        allocator.maxMessagesPerRead(ACCEPTS_PER_TURN);
        allocator.respectMaybeMoreData(false);
        return allocator;
    }

    private static String explain(ListenAddress address, Exception e) {
        String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (message.contains("permission denied") || message.contains("eacces")) {
            return "cannot listen on " + address + ": permission denied (ports below 1024 need root or the "
                    + "CAP_NET_BIND_SERVICE capability; or choose a port like 8080 in listen:)";
        }
        if (message.contains("already in use")) {
            return "cannot listen on " + address + ": the address is already in use (is another server running?)";
        }
        if (e instanceof BindException || e instanceof SocketException) {
            return "cannot listen on " + address + ": " + e.getMessage();
        }
        return "cannot listen on " + address + ": " + e;
    }

    /** The address actually bound (the real port when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Starts taking the connections the kernel queued since the bind, and every one after. */
    public void startAccepting() {
        channel.config().setAutoRead(true);
    }

    /** Stops accepting; connections already open are not touched. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
