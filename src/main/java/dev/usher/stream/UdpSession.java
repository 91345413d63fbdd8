package dev.usher.stream;

import dev.usher.config.UpstreamAddress;
import dev.usher.observe.StreamEnding;
import dev.usher.observe.StreamObserver;
import dev.usher.observe.StreamRecord;
import dev.usher.upstream.UpstreamPool;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;

/**
 * One client of a UDP stream: a UDP socket connected to the backend picked when the client's first datagram came,
 * which the client's datagrams are written to and whose replies the {@link UdpStreamListener} sends back from its
 * own socket. Datagrams that come while the backend's name resolves wait, a few at most. Runs on the listener's
 * event loop.
 */
final class UdpSession {
    private static final System.Logger LOG = System.getLogger(UdpSession.class.getName());
    /** Datagrams kept for a backend socket still being connected (its name resolving); more are dropped. */
    private static final int EARLY_MAX = 16;

    private final UdpStreamListener listener;
    private final RelayPlan plan;
    private final InetSocketAddress client;
    private final StreamObserver observer;
    private final UpstreamPool pool;
    private final long startMillis = System.currentTimeMillis();
    private final long startNanos = System.nanoTime();
    private final long idleNanos;
    private final ArrayDeque<ByteBuf> early = new ArrayDeque<>(2);
    private Channel backend;
    private boolean connected;
    private boolean ended;
    private long lastActivityNanos = startNanos;
    private long bytesIn;
    private long bytesOut;

    private UdpSession(UdpStreamListener listener, RelayPlan plan, InetSocketAddress client,
                       StreamObserver observer, UpstreamPool pool) {
        this.listener = listener;
        this.plan = plan;
        this.client = client;
        this.observer = observer;
        this.pool = pool;
        this.idleNanos = plan.idleTimeout().toNanos();
    }

    /** A session for {@code client} with a backend from the plan, or null (counted and logged) when none is up. */
    static UdpSession open(UdpStreamListener listener, RelayPlan plan, InetSocketAddress client,
                           StreamObserver observer) {
        observer.streamStarted(plan.label());
        UpstreamPool pool = plan.backends().pick(client.getAddress(), List.of());
        if (pool == null) {
            observer.streamEnded(new StreamRecord(System.currentTimeMillis(), client.getAddress().getHostAddress(),
                    plan.label(), plan.kind(), null, null, 0, 0, 0, StreamEnding.NO_UPSTREAM, plan.accessLog()));
            return null;
        }
        UdpSession session = new UdpSession(listener, plan, client, observer, pool);
        plan.backends().requestStarted(pool);
        ChannelFuture connect = pool.connectDatagram(listener.channel().eventLoop(), session.new FromBackend());
        session.backend = connect.channel();
        connect.addListener((ChannelFuture f) -> session.connected(f));
        return session;
    }

    InetSocketAddress client() {
        return client;
    }

    private void connected(ChannelFuture f) {
        if (ended) {
            f.channel().close();
            return;
        }
        if (!f.isSuccess()) {
            plan.backends().failed(pool);
            LOG.log(Level.DEBUG, "{0}: cannot reach {1}: {2}", plan.label(), pool.address(),
                    String.valueOf(f.cause()));
            end(StreamEnding.CONNECT_FAILED);
            return;
        }
        connected = true;
        for (ByteBuf buf; (buf = early.poll()) != null; ) {
            backend.write(buf, backend.voidPromise());
        }
        backend.flush();
    }

    /** A datagram's payload from the client (not retained by the caller). */
    void fromClient(ByteBuf content) {
        lastActivityNanos = System.nanoTime();
        bytesIn += content.readableBytes();
        if (connected) {
            if (backend.isWritable()) {
                backend.writeAndFlush(content.retain(), backend.voidPromise());
            }
        } else if (early.size() < EARLY_MAX) {
            early.add(content.retain());
        }
    }

    /** True when neither side sent a datagram for the idle timeout, as of {@code nowNanos}. */
    boolean idleAt(long nowNanos) {
        return nowNanos - lastActivityNanos >= idleNanos;
    }

    /** Ends the session once: its backend socket closed, its line and counts recorded. */
    void end(StreamEnding why) {
        if (ended) {
            return;
        }
        ended = true;
        for (ByteBuf buf; (buf = early.poll()) != null; ) {
            buf.release();
        }
        plan.backends().requestEnded(pool);
        if (backend != null) {
            backend.close();
        }
        listener.ended(this);
        UpstreamAddress upstream = pool.address();
        observer.streamEnded(new StreamRecord(startMillis, client.getAddress().getHostAddress(), plan.label(),
                plan.kind(), null, upstream, bytesIn, bytesOut, System.nanoTime() - startNanos, why,
                plan.accessLog()));
    }

    /** The backend socket's handler: replies go to the client through the listening socket. */
    private final class FromBackend extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            lastActivityNanos = System.nanoTime();
            bytesOut += packet.content().readableBytes();
            listener.reply(client, packet.content().retain());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // ICMP port unreachable: nothing listens there (now). The session stays until idle; the backend is
            // counted as failing so that new sessions go elsewhere.
            plan.backends().failed(pool);
            LOG.log(Level.DEBUG, "{0}: backend {1}: {2}", plan.label(), pool.address(), String.valueOf(cause));
        }
    }
}
