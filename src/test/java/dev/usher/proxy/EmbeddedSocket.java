package dev.usher.proxy;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DefaultSocketChannelConfig;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketChannelConfig;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;

/**
 * An {@link EmbeddedChannel} that passes for a TCP socket, so that Usher's own code makes it where it would make
 * one: as a backend connection, through {@code UpstreamPool}'s real {@code Bootstrap} (a transport with this
 * class as its socket class), or as a client connection with a real remote address. Connecting succeeds at once,
 * except to {@link #REFUSING_PORT} and {@link #SILENT_PORT}. The test
 * thread is its event loop: what Usher writes is read with {@link #readOutbound()}, and what the peer sends is
 * written with {@link #writeInbound}. Shared by the exchange tests and the JMH benchmark of the proxy path.
 */
public final class EmbeddedSocket extends EmbeddedChannel implements SocketChannel {
    /** Connecting to this port is refused ({@link #REFUSAL_MILLIS} later), as by a backend that is not running. */
    public static final int REFUSING_PORT = 1;
    public static final long REFUSAL_MILLIS = 10;
    /** Connecting to this port times out (after the connect timeout), as to a host that drops packets. */
    public static final int SILENT_PORT = 2;

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

    @Override
    public ChannelFuture connect(SocketAddress remote, ChannelPromise promise) {
        return connect(remote, null, promise);
    }

    @Override
    public ChannelFuture connect(SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        int port = remote instanceof InetSocketAddress inet ? inet.getPort() : 0;
        if (port == REFUSING_PORT) {
            // The refusal comes back a moment later, as over a network: not within the request's own read batch.
            eventLoop().schedule(() -> {
                if (promise.tryFailure(new ConnectException("Connection refused: " + remote))) {
                    close();
                }
            }, REFUSAL_MILLIS, TimeUnit.MILLISECONDS);
        } else if (port == SILENT_PORT) {
            // As Netty's socket channels do: the connection attempt fails after the connect timeout.
            eventLoop().schedule(() -> {
                if (promise.tryFailure(new ConnectTimeoutException("connection timed out: " + remote))) {
                    close();
                }
            }, config().getConnectTimeoutMillis(), TimeUnit.MILLISECONDS);
        } else {
            super.connect(remote, local, promise);
        }
        return promise;
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
