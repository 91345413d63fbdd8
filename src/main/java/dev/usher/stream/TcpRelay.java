package dev.usher.stream;

import dev.usher.config.ProxyProtocol;
import dev.usher.config.UpstreamAddress;
import dev.usher.net.ClientAddress;
import dev.usher.net.DrainEvent;
import dev.usher.observe.StreamEnding;
import dev.usher.observe.StreamObserver;
import dev.usher.observe.StreamRecord;
import dev.usher.rules.Networks;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPool;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One relayed TCP connection, the handler on the client's channel (its peer on the backend's is a
 * {@link RelayBackendSide}): picks a backend from the plan's group and connects to it on the client's own event loop,
 * trying the next backend when a connect fails (nothing was sent yet); then, after the PROXY header when the plan asks
 * for one and whatever the client sent meanwhile (a replayed ClientHello), copies bytes both ways.
 *
 * <p><b>Backpressure</b>: auto-read is off on both channels; a side is read only while the other one is writable, so
 * a slow reader holds the fast writer to the socket buffers and Netty's write watermarks, whatever the transfer's
 * size. <b>Half-close</b>: when one side ends its output (FIN), the other side's output is shut after what was read
 * has been written; the connection ends when both sides have. <b>Idle</b>: no byte either way for the plan's idle
 * timeout closes both. At a graceful stop the relay runs on until it ends or the grace period is over.
 *
 * <p>One per connection; every method runs on the client channel's event loop, which the backend channel shares.
 */
final class TcpRelay extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(TcpRelay.class.getName());

    /** Where the relay is in its life. */
    private enum State { CONNECTING, RELAYING, ENDED }

    private final RelayPlan plan;
    private final String serverName;
    private final StreamObserver observer;
    private final long startMillis = System.currentTimeMillis();
    private final long startNanos = System.nanoTime();
    private final List<UpstreamPool> tried = new ArrayList<>(2);
    /** Client bytes that came before the backend was connected (a replayed ClientHello, an eager client). */
    private final ArrayDeque<ByteBuf> early = new ArrayDeque<>(2);
    private State state = State.CONNECTING;
    private ChannelHandlerContext ctx;
    private Channel client;
    private InetAddress clientIp;
    /** The backend channel being connected or relayed to; null between attempts. */
    private Channel backend;
    /** The backend connected to, once connected. */
    private UpstreamPool pool;
    private UpstreamAddress upstream;
    private long bytesIn;
    private long bytesOut;
    private boolean clientDone;
    private boolean backendDone;
    /** Who ended its output first, which says how the connection ended when both have. */
    private StreamEnding firstToClose;
    private long lastActivityNanos = startNanos;
    private ScheduledFuture<?> idleTimer;

    /**
     * @param serverName the TLS server name the connection was routed by, or null
     */
    TcpRelay(RelayPlan plan, String serverName, StreamObserver observer) {
        this.plan = plan;
        this.serverName = serverName;
        this.observer = observer;
    }

    /**
     * Ends a connection the stream will not relay ({@code why}: over its limit, no plan for its name) with its log
     * line and counts, and closes it.
     */
    static void refuse(Channel ch, String label, String kind, String serverName, boolean logged,
                       StreamObserver observer, StreamEnding why) {
        observer.streamStarted(label);
        observer.streamEnded(new StreamRecord(System.currentTimeMillis(), ip(ClientAddress.of(ch)), label, kind,
                serverName, null, 0, 0, 0, why, logged));
        ch.close();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.client = ctx.channel();
        SocketAddress address = ClientAddress.of(client);
        clientIp = address instanceof InetSocketAddress inet ? inet.getAddress() : null;
        observer.streamStarted(plan.label());
        if (!Networks.admits(plan.allow(), plan.deny(), clientIp)) {
            end(StreamEnding.DENIED);
            return;
        }
        scheduleIdleCheck(plan.idleTimeout().toNanos());
        connectNext();
    }

    /** Connects to the next backend the group picks, or ends when none is left. */
    private void connectNext() {
        UpstreamGroup group = plan.backends();
        UpstreamPool next = group.pick(clientIp, tried);
        if (next == null) {
            end(tried.isEmpty() ? StreamEnding.NO_UPSTREAM : StreamEnding.CONNECT_FAILED);
            return;
        }
        tried.add(next);
        upstream = next.address();
        ChannelFuture connect = next.connectRelay(client.eventLoop(), plan.connectTimeout(),
                new RelayBackendSide(this));
        backend = connect.channel();
        connect.addListener((ChannelFuture f) -> connected(f, next));
    }

    private void connected(ChannelFuture f, UpstreamPool next) {
        UpstreamGroup group = plan.backends();
        if (state == State.ENDED) {
            f.channel().close();
            return;
        }
        if (!f.isSuccess()) {
            group.failed(next);
            LOG.log(Level.DEBUG, "{0}: cannot connect to {1}: {2}", plan.label(), next.address(),
                    String.valueOf(f.cause()));
            backend = null;
            connectNext();
            return;
        }
        pool = next;
        group.succeeded(next);
        group.requestStarted(next);
        state = State.RELAYING;
        if (plan.proxyProtocol() != ProxyProtocol.OFF) {
            ProxyHeaders.write(backend, plan.proxyProtocol(), ClientAddress.of(client), client.localAddress());
        }
        for (ByteBuf buf; (buf = early.poll()) != null; ) {
            backend.write(buf, backend.voidPromise());
        }
        backend.flush();
        if (clientDone) {
            shutDownOutput(backend);
        } else {
            client.read();
        }
        backend.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastActivityNanos = System.nanoTime();
        bytesIn += buf.readableBytes();
        switch (state) {
            case RELAYING -> backend.write(buf, backend.voidPromise());
            case CONNECTING -> early.add(buf);
            case ENDED -> buf.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (state == State.RELAYING) {
            backend.flush();
            if (backend.isWritable() && !clientDone) {
                client.read();
            }
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (client.isWritable()) {
            backendMayRead();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            clientDone = true;
            if (firstToClose == null) {
                firstToClose = StreamEnding.CLIENT_CLOSED;
            }
            if (state == State.RELAYING) {
                shutDownOutput(backend);
            }
            endIfBothDone();
        } else if (evt instanceof DrainEvent drain) {
            drain.claimUpgraded(); // a relay has no requests to finish: it runs on within the grace period
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end(firstToClose != null ? firstToClose : StreamEnding.CLIENT_CLOSED);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.log(Level.DEBUG, "{0}: client {1}: {2}", plan.label(), clientIp, String.valueOf(cause));
        end(StreamEnding.ERROR);
    }

    // --- called by RelayBackendSide, on the same event loop ---

    /** Bytes from the backend, for the client. */
    void fromBackend(ByteBuf buf) {
        lastActivityNanos = System.nanoTime();
        bytesOut += buf.readableBytes();
        client.write(buf, client.voidPromise());
    }

    /** The backend's read is done: flush to the client, and read the backend again while the client keeps up. */
    void backendReadComplete() {
        client.flush();
        if (client.isWritable()) {
            backendMayRead();
        }
    }

    /** The backend channel can take more: read the client again. */
    void backendWritable() {
        if (state == State.RELAYING && !clientDone && backend.isWritable()) {
            client.read();
        }
    }

    /** The backend ended its output (FIN), or closed. */
    void backendEnded(Channel from, boolean closed) {
        if (from != backend || state != State.RELAYING) {
            return;
        }
        if (bytesIn == 0 && bytesOut == 0 && !clientDone && plan.proxyProtocol() == ProxyProtocol.OFF) {
            // Accepted and closed at once with nothing sent either way (a port forwarder whose target is gone):
            // as good as a refused connect, so the next backend is tried.
            retryAfterEmptyClose();
            return;
        }
        if (closed) {
            end(firstToClose != null ? firstToClose : StreamEnding.UPSTREAM_CLOSED);
            return;
        }
        backendDone = true;
        if (firstToClose == null) {
            firstToClose = StreamEnding.UPSTREAM_CLOSED;
        }
        shutDownOutput(client);
        endIfBothDone();
    }

    /** A read or write on the backend failed. */
    void backendFailed(Channel from, Throwable cause) {
        if (from != backend) {
            return;
        }
        LOG.log(Level.DEBUG, "{0}: backend {1}: {2}", plan.label(), upstream, String.valueOf(cause));
        end(StreamEnding.ERROR);
    }

    private void retryAfterEmptyClose() {
        UpstreamGroup group = plan.backends();
        group.failed(pool);
        group.requestEnded(pool);
        pool = null;
        backend.close();
        backend = null;
        state = State.CONNECTING;
        connectNext();
    }

    private void backendMayRead() {
        if (state == State.RELAYING && !backendDone) {
            backend.read();
        }
    }

    private void endIfBothDone() {
        if (clientDone && backendDone) {
            end(firstToClose);
        }
    }

    /** Shuts {@code ch}'s output once what was written to it is flushed (a half-close passed on). */
    private static void shutDownOutput(Channel ch) {
        ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
            if (ch instanceof DuplexChannel duplex && ch.isActive()) {
                duplex.shutdownOutput();
            } else {
                ch.close();
            }
        });
    }

    private void scheduleIdleCheck(long delayNanos) {
        idleTimer = client.eventLoop().schedule(this::idleCheck, Math.max(1, delayNanos), TimeUnit.NANOSECONDS);
    }

    private void idleCheck() {
        if (state == State.ENDED) {
            return;
        }
        long idle = plan.idleTimeout().toNanos();
        long quiet = System.nanoTime() - lastActivityNanos;
        if (quiet >= idle) {
            end(StreamEnding.IDLE_TIMEOUT);
        } else {
            scheduleIdleCheck(idle - quiet);
        }
    }

    /** Ends the relay once: both channels closed after what was written is flushed, the line and counts recorded. */
    private void end(StreamEnding why) {
        if (state == State.ENDED) {
            return;
        }
        state = State.ENDED;
        if (idleTimer != null) {
            idleTimer.cancel(false);
        }
        for (ByteBuf buf; (buf = early.poll()) != null; ) {
            buf.release();
        }
        if (pool != null) {
            plan.backends().requestEnded(pool);
        }
        if (backend != null) {
            closeOnFlush(backend);
        }
        closeOnFlush(client);
        observer.streamEnded(new StreamRecord(startMillis, clientIp == null ? "" : clientIp.getHostAddress(),
                plan.label(), plan.kind(), serverName, upstream, bytesIn, bytesOut, System.nanoTime() - startNanos,
                why, plan.accessLog()));
    }

    private static void closeOnFlush(Channel ch) {
        if (ch.isActive()) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        } else {
            ch.close();
        }
    }

    private static String ip(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : "";
    }
}
