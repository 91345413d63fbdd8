package dev.usher.whoami;

import dev.usher.net.Transport;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A tiny built-in HTTP/1.1 backend in the spirit of traefik/whoami, for the demo, tests and benchmarks.
 *
 * <ul>
 *   <li>any path: {@code 200 text/plain} listing {@code Hostname}, {@code IP}s, {@code RemoteAddr}, the request
 *       line and every request header in the order received;</li>
 *   <li>{@code ?wait=DURATION} on any path ({@code 2s}, {@code 150ms}, {@code 1m30s}; a bare number is ms):
 *       answers after that delay, scheduled on the event loop;</li>
 *   <li>{@code /data?size=N} ({@code 1024}, {@code 64KB} = 64000, {@code 50MiB} = 50·2²⁰, …): N bytes where the
 *       byte at offset {@code i} is {@code (byte) i} (0x00…0xFF repeating), with {@code Content-Length};</li>
 *   <li>{@code /echo}: streams the request body back as it arrives (same {@code Content-Length}, or chunked);</li>
 *   <li>{@code /status/NNN}: that status (200–599) with a short body; {@code /health}: {@code 200 ok\n};</li>
 *   <li>{@code Upgrade: websocket} on any path: a websocket echo (messages up to 16 MiB; pings answered);</li>
 *   <li>every response carries {@code X-Whoami: <name>}.</li>
 * </ul>
 * Bodies are streamed with backpressure in both directions, so memory use does not grow with their size.
 * Keep-alive, pipelining, {@code Connection: close} and HTTP/1.0 are handled.
 *
 * <p>Thread-safe. {@code start} blocks until the listener is bound; do not call it (or {@link #close()}) on an
 * event loop thread.
 */
public final class Whoami implements AutoCloseable {
    private final Channel listener;
    private final ChannelGroup connections;
    private final EventLoopGroup ownGroup;
    private final Counters counters;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Whoami(Channel listener, ChannelGroup connections, EventLoopGroup ownGroup, Counters counters) {
        this.listener = listener;
        this.connections = connections;
        this.ownGroup = ownGroup;
        this.counters = counters;
    }

    /**
     * Starts a whoami on its own one-thread event loop group (shut down by {@link #close()}).
     *
     * @param host the address to bind; null, {@code ""} or {@code "*"} binds every interface
     * @param port the port, 0 for an ephemeral one (see {@link #port()})
     * @param name what to report as {@code Hostname} and {@code X-Whoami}; null for the machine's host name
     * @return the running whoami, bound and serving
     * @throws UncheckedIOException when the address cannot be bound (the message says which and why)
     */
    public static Whoami start(String host, int port, String name) {
        EventLoopGroup group = Transport.best().newGroup(1, "whoami");
        try {
            return start(host, port, name, group, true);
        } catch (RuntimeException | Error e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Starts a whoami on a shared event loop group, which {@link #close()} leaves running.
     *
     * @see #start(String, int, String)
     */
    public static Whoami start(String host, int port, String name, EventLoopGroup group) {
        return start(host, port, name, Objects.requireNonNull(group, "group"), false);
    }

    private static Whoami start(String host, int port, String name, EventLoopGroup group, boolean ownsGroup) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0-65535, not " + port);
        }
        Identity identity = Identity.of(name);
        InetSocketAddress address = bindAddress(host, port);
        Counters counters = new Counters();
        ChannelGroup connections = new DefaultChannelGroup("whoami", GlobalEventExecutor.INSTANCE, true);
        ChannelFuture bind = new ServerBootstrap()
                .group(group)
                .channel(serverChannelFor(group))
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new WhoamiInitializer(identity, counters, connections))
                .bind(address)
                .awaitUninterruptibly();
        if (!bind.isSuccess()) {
            Throwable cause = bind.cause();
            IOException io = cause instanceof IOException e ? e : new IOException(cause);
            String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
            throw new UncheckedIOException("whoami cannot listen on " + hostPort(host, port) + ": " + why, io);
        }
        return new Whoami(bind.channel(), connections, ownsGroup ? group : null, counters);
    }

    private static InetSocketAddress bindAddress(String host, int port) {
        if (host == null || host.isEmpty() || host.equals("*")) {
            return new InetSocketAddress(port);
        }
        String literal = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetSocketAddress address = new InetSocketAddress(literal, port);
        if (address.isUnresolved()) {
            throw new UncheckedIOException("whoami cannot listen on " + hostPort(host, port) + ": unknown host",
                    new IOException("unknown host " + host));
        }
        return address;
    }

    private static String hostPort(String host, int port) {
        String h = host == null || host.isEmpty() ? "*" : host.indexOf(':') >= 0 && !host.startsWith("[")
                ? "[" + host + "]" : host;
        return h + ":" + port;
    }

    /** The server channel class must match the group's transport: NIO groups get NIO, others the best one. */
    private static Class<? extends ServerChannel> serverChannelFor(EventLoopGroup group) {
        if (group instanceof IoEventLoopGroup io && io.isIoType(NioIoHandler.class)) {
            return Transport.nio().serverChannel();
        }
        return Transport.best().serverChannel();
    }

    /** The port it listens on (the real one when started with port 0). */
    public int port() {
        return address().getPort();
    }

    /** The address it listens on. */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** TCP connections accepted so far. */
    public long acceptedConnections() {
        return counters.acceptedConnections();
    }

    /** HTTP request heads received so far (websocket handshakes included). */
    public long requestsSeen() {
        return counters.requestsSeen();
    }

    /** TCP connections open right now (websocket connections included). */
    public int openConnections() {
        return connections.size();
    }

    /** Closes the listener and every connection, and shuts down its own event loop group. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        listener.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
        if (ownGroup != null) {
            ownGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /** Blocks until the listener is closed (by {@link #close()}). */
    public void awaitClosed() {
        listener.closeFuture().awaitUninterruptibly();
    }
}
