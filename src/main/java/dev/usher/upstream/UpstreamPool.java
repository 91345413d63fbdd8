package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.concurrent.Future;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections to one backend (its address, scheme and TLS settings): one {@link LoopPool} per event loop, made on
 * first use. HTTP/1.1 backends get keep-alive connections, bounded in idle connections per loop; HTTP/2 backends one
 * multiplexed connection per loop. Connections idle longer than the idle timeout are closed.
 */
public final class UpstreamPool {
    private final UpstreamAddress address;
    private final Transport transport;
    private final AddressResolverGroup<InetSocketAddress> resolver;
    private final int maxIdlePerLoop;
    private final Duration idleTimeout;
    private final BackendTls tls;
    private final Map<EventLoop, LoopPool> loops = new ConcurrentHashMap<>();

    UpstreamPool(UpstreamAddress address, Transport transport, AddressResolverGroup<InetSocketAddress> resolver,
                 int maxIdlePerLoop, Duration idleTimeout, BackendTls tls) {
        this.address = address;
        this.transport = transport;
        this.resolver = resolver;
        this.tls = tls;
        this.maxIdlePerLoop = maxIdlePerLoop;
        this.idleTimeout = idleTimeout;
    }

    /** The backend this pool connects to. */
    public UpstreamAddress address() {
        return address;
    }

    /**
     * A connection to the backend on {@code loop}: an idle one when there is one, a new one otherwise (or always a
     * new one when {@code fresh}, for a retry after a stale keep-alive); to an HTTP/2 backend, a new stream. Must be
     * called on {@code loop}.
     */
    public Future<UpstreamConnection> acquire(EventLoop loop, Duration connectTimeout, boolean fresh) {
        return acquire(loop, connectTimeout, fresh, false);
    }

    /** As the other {@code acquire}; {@code upgrade}: for a websocket, always an HTTP/1.1 connection. */
    public Future<UpstreamConnection> acquire(EventLoop loop, Duration connectTimeout, boolean fresh,
                                              boolean upgrade) {
        return loops.computeIfAbsent(loop, l -> new LoopPool(this, l)).acquire(connectTimeout, fresh, upgrade);
    }

    /**
     * A new connection to the backend on {@code loop} for a relay (a stream, or a passthrough site), outside the
     * pool: its bytes are not HTTP, so it is never reused. Auto-read is off; {@code handler} is its pipeline's only
     * handler. The name resolves off the loop, like the pool's own connections.
     */
    public ChannelFuture connectRelay(EventLoop loop, Duration connectTimeout, ChannelHandler handler) {
        return new Bootstrap()
                .group(loop)
                .channel(transport.socketChannel())
                .resolver(resolver)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        Math.max(1, connectTimeout.toMillis())))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .handler(handler)
                .connect(InetSocketAddress.createUnresolved(address.host(), address.port()));
    }

    /**
     * A UDP socket connected to the backend on {@code loop}, for one client session of a UDP stream; auto-read on.
     * The name resolves off the loop.
     */
    public ChannelFuture connectDatagram(EventLoop loop, ChannelHandler handler) {
        return new Bootstrap()
                .group(loop)
                .channel(transport.datagramChannel())
                .resolver(resolver)
                .handler(handler)
                .connect(InetSocketAddress.createUnresolved(address.host(), address.port()));
    }

    /**
     * Connections to this backend now, over all event loops, and failed connection attempts so far: for metrics.
     * Thread-safe; each loop's numbers are read without synchronisation, so they may be a moment old.
     */
    public Stats stats() {
        int idle = 0;
        int open = 0;
        long errors = 0;
        for (LoopPool pool : loops.values()) {
            idle += pool.idleCount();
            open += pool.openCount();
            errors += pool.connectErrors();
        }
        return new Stats(idle, Math.max(0, open - idle), errors);
    }

    /**
     * @param idle          connections kept for reuse
     * @param active        connections carrying a request (or a websocket)
     * @param connectErrors failed connection attempts since start
     */
    public record Stats(int idle, int active, long connectErrors) {
    }

    /** Closes every idle connection; leased ones close when their exchange ends. */
    public void close() {
        for (LoopPool pool : loops.values()) {
            pool.loop().execute(pool::close);
        }
    }

    BackendTls tls() {
        return tls;
    }

    Transport transport() {
        return transport;
    }

    AddressResolverGroup<InetSocketAddress> resolver() {
        return resolver;
    }

    int maxIdlePerLoop() {
        return maxIdlePerLoop;
    }

    Duration idleTimeout() {
        return idleTimeout;
    }
}
