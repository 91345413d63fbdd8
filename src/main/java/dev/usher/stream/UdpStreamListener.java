package dev.usher.stream;

import dev.usher.config.ListenAddress;
import dev.usher.config.StreamSetting;
import dev.usher.net.Transport;
import dev.usher.observe.StreamEnding;
import dev.usher.observe.StreamObserver;
import dev.usher.rules.Networks;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.concurrent.ScheduledFuture;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One UDP stream's socket. Each client address gets a session ({@link UdpSession}): a UDP socket connected to one
 * backend, which the client's datagrams go to and whose replies go back to the client from this listening socket
 * (so the client sees its answers come from the address it wrote to). Sessions end after the stream's idle timeout
 * without a datagram either way; at most {@code max_sessions} are open, and a datagram from a new client beyond that
 * (or from a client not allowed) is dropped and counted.
 *
 * <p>Threading: the socket, every session and every backend socket live on one event loop, so the session table
 * needs no locks. A reload that keeps the port keeps this listener and its sessions (each keeps its backend); new
 * sessions follow the config in service.
 */
public final class UdpStreamListener implements AutoCloseable {
    /** How often idle sessions are looked for, at most (and at least). */
    private static final long MIN_SWEEP_MILLIS = 50;
    private static final long MAX_SWEEP_MILLIS = 5000;

    private final Channel channel;
    private final ListenAddress listen;
    private final Supplier<StreamTable> tables;
    private final StreamObserver observer;
    /** Client address → session. Event loop only. */
    private final Map<InetSocketAddress, UdpSession> sessions = new HashMap<>();
    private ScheduledFuture<?> sweeper;

    private UdpStreamListener(Channel channel, ListenAddress listen, Supplier<StreamTable> tables,
                              StreamObserver observer) {
        this.channel = channel;
        this.listen = listen;
        this.tables = tables;
        this.observer = observer;
    }

    /**
     * Binds {@code listen} over UDP, paused until {@link #startAccepting}.
     *
     * @throws java.io.UncheckedIOException when the address cannot be bound, with the system's reason
     */
    public static UdpStreamListener bind(ListenAddress listen, Transport transport, EventLoopGroup loops,
                                         Supplier<StreamTable> tables, StreamObserver observer) {
        Holder holder = new Holder();
        Bootstrap bootstrap = new Bootstrap()
                .group(loops)
                .channel(transport.datagramChannel())
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(new Reader(holder));
        InetSocketAddress socket = listen.anyHost() ? new InetSocketAddress(listen.port())
                : new InetSocketAddress(listen.host(), listen.port());
        Channel bound;
        try {
            bound = bootstrap.bind(socket).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new java.io.UncheckedIOException(new java.io.IOException(String.valueOf(e.getMessage()), e));
        }
        UdpStreamListener listener = new UdpStreamListener(bound, listen, tables, observer);
        holder.listener = listener;
        return listener;
    }

    /** The address actually bound. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Starts reading datagrams (queued by the kernel since the bind), and the idle sweeps. */
    public void startAccepting() {
        channel.eventLoop().execute(() -> {
            scheduleSweep();
            channel.config().setAutoRead(true);
        });
    }

    /** Client sessions open now. */
    public int sessions() {
        return channel.eventLoop().inEventLoop() ? sessions.size()
                : channel.eventLoop().submit(sessions::size).syncUninterruptibly().getNow();
    }

    /** Closes the socket and every session (their clients' next datagrams go nowhere). */
    @Override
    public void close() {
        channel.eventLoop().submit(() -> {
            if (sweeper != null) {
                sweeper.cancel(false);
            }
            for (UdpSession s : new ArrayList<>(sessions.values())) {
                s.end(StreamEnding.SHUTDOWN);
            }
        }).awaitUninterruptibly(2, TimeUnit.SECONDS);
        channel.close().syncUninterruptibly();
    }

    /** A datagram from a client: to its session, made now for a new client when the stream admits it. */
    private void received(DatagramPacket packet) {
        InetSocketAddress client = packet.sender();
        UdpSession session = sessions.get(client);
        if (session == null) {
            StreamTable.Compiled stream = tables.get().stream(listen, StreamSetting.Protocol.UDP);
            if (stream == null) {
                return; // the stream was removed; its socket closes in a moment
            }
            RelayPlan plan = stream.plan();
            if (!Networks.admits(plan.allow(), plan.deny(), client.getAddress())
                    || sessions.size() >= stream.setting().maxConnections()) {
                observer.datagramDropped(plan.label());
                return;
            }
            session = UdpSession.open(this, plan, client, observer);
            if (session == null) {
                return; // no backend to send to; counted as a session that ended with no upstream
            }
            sessions.put(client, session);
        }
        session.fromClient(packet.content());
    }

    /** A reply from a session's backend, sent to its client from this socket. */
    void reply(InetSocketAddress client, io.netty.buffer.ByteBuf content) {
        channel.writeAndFlush(new DatagramPacket(content, client), channel.voidPromise());
    }

    /** A session ended (idle, or its backend socket failed): it leaves the table. */
    void ended(UdpSession session) {
        sessions.remove(session.client(), session);
    }

    Channel channel() {
        return channel;
    }

    private void scheduleSweep() {
        StreamTable.Compiled stream = tables.get().stream(listen, StreamSetting.Protocol.UDP);
        long idle = stream == null ? MAX_SWEEP_MILLIS : stream.setting().idleTimeout().toMillis();
        long every = Math.max(MIN_SWEEP_MILLIS, Math.min(MAX_SWEEP_MILLIS, idle / 4));
        sweeper = channel.eventLoop().schedule(this::sweep, every, TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        if (!channel.isOpen()) {
            return;
        }
        long now = System.nanoTime();
        List<UdpSession> idle = new ArrayList<>();
        for (UdpSession s : sessions.values()) {
            if (s.idleAt(now)) {
                idle.add(s);
            }
        }
        idle.forEach(s -> s.end(StreamEnding.IDLE_TIMEOUT));
        scheduleSweep();
    }

    /** The listener, set once it exists (the channel's handler is made before it). */
    private static final class Holder {
        UdpStreamListener listener;
    }

    /** The listening socket's handler. */
    private static final class Reader extends SimpleChannelInboundHandler<DatagramPacket> {
        private final Holder holder;

        Reader(Holder holder) {
            super(true);
            this.holder = holder;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            UdpStreamListener listener = holder.listener;
            if (listener != null) {
                listener.received(packet);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // An ICMP error for an earlier reply (a client gone): nothing to do for the socket as a whole.
        }
    }
}
