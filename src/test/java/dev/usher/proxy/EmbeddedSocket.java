package dev.usher.proxy;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DefaultSocketChannelConfig;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketChannelConfig;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * An {@link EmbeddedChannel} that passes for a TCP socket, so that Usher's own code makes it where it would make
 * one: as a backend connection, through {@code UpstreamPool}'s real {@code Bootstrap} (give
 * {@link #TRANSPORT}-like transports its class), or as a client connection with a real remote address. The test
 * thread is its event loop: what Usher writes is read with {@link #readOutbound()}, and what the peer sends is
 * written with {@link #writeInbound}. Shared by the exchange tests and the JMH benchmark of the proxy path.
 */
public final class EmbeddedSocket extends EmbeddedChannel implements SocketChannel {
    /** Backend connections made on this thread and not yet taken by {@link #nextMade()}. */
    private static final ThreadLocal<Deque<EmbeddedSocket>> MADE = ThreadLocal.withInitial(ArrayDeque::new);

    private final InetSocketAddress remote;
    private final SocketChannelConfig socketConfig;

    /** A backend connection (what {@code Bootstrap} makes): registered by it on the client's event loop. */
    public EmbeddedSocket() {
        this(new InetSocketAddress("127.0.0.1", 8080));
        MADE.get().add(this);
    }

    /** An unregistered socket whose peer is {@code remote}: add handlers, then {@link #register()}. */
    public EmbeddedSocket(InetSocketAddress remote) {
        super(false, false);
        this.remote = remote;
        this.socketConfig = new DefaultSocketChannelConfig(this, new Socket()) {
            @Override
            public SocketChannelConfig setTcpNoDelay(boolean tcpNoDelay) {
                return this; // no real socket behind it
            }
        };
    }

    /** The oldest backend connection made on this thread since the last call, or null. */
    public static EmbeddedSocket nextMade() {
        return MADE.get().poll();
    }

    @Override
    public SocketChannelConfig config() {
        return socketConfig;
    }

    @Override
    public ServerSocketChannel parent() {
        return null;
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 443);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public boolean isInputShutdown() {
        return !isActive();
    }

    @Override
    public ChannelFuture shutdownInput() {
        return close();
    }

    @Override
    public ChannelFuture shutdownInput(ChannelPromise promise) {
        return close(promise);
    }

    @Override
    public boolean isOutputShutdown() {
        return !isActive();
    }

    @Override
    public ChannelFuture shutdownOutput() {
        return close();
    }

    @Override
    public ChannelFuture shutdownOutput(ChannelPromise promise) {
        return close(promise);
    }

    @Override
    public boolean isShutdown() {
        return !isActive();
    }

    @Override
    public ChannelFuture shutdown() {
        return close();
    }

    @Override
    public ChannelFuture shutdown(ChannelPromise promise) {
        return close(promise);
    }
}
