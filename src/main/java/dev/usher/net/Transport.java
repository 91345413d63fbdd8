package dev.usher.net;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The socket transport: Linux epoll when its native library loads, Java NIO otherwise. Event loop groups and
 * channel classes must come from the same transport, so they are chosen together here.
 *
 * @param name          {@code epoll} or {@code nio}, for the start-up log
 * @param handlers      makes the I/O handler of each event loop
 * @param serverChannel the listening socket class
 * @param socketChannel the connected socket class (clients and backends)
 */
public record Transport(String name, IoHandlerFactory handlers, Class<? extends ServerChannel> serverChannel,
                        Class<? extends SocketChannel> socketChannel) {

    /** The best transport this machine offers. */
    public static Transport best() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                    EpollSocketChannel.class);
        }
        return nio();
    }

    /** Plain Java NIO, available everywhere. */
    public static Transport nio() {
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, NioSocketChannel.class);
    }

    /** Why epoll is not used, or null when it is available. */
    public static Throwable epollUnavailabilityCause() {
        return Epoll.unavailabilityCause();
    }

    /** The UDP socket class of this transport (QUIC). */
    public Class<? extends DatagramChannel> datagramChannel() {
        return name.equals("epoll") ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    /** A group of {@code threads} event loops whose threads are named {@code usher-<purpose>-N}. */
    public EventLoopGroup newGroup(int threads, String purpose) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("usher-" + purpose, false), handlers);
    }
}
