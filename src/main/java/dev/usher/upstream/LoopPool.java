package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The keep-alive connections to one backend owned by one event loop. Touched only from that event loop, so it needs
 * no locks; a client connection always leases from the pool of its own loop, which keeps both channels on one thread.
 */
final class LoopPool {
    private final UpstreamPool owner;
    private final EventLoop loop;
    /** Most recently released last: taking from the end reuses warm connections and lets cold ones time out. */
    private final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>();
    private boolean sweepScheduled;
    private boolean closed;
    /**
     * Connections open to the backend from this loop, and failed connection attempts. Written on the loop only; read
     * from elsewhere for metrics, where a slightly stale value is fine (hence no volatile on the request path).
     */
    private int open;
    private long connectErrors;

    LoopPool(UpstreamPool owner, EventLoop loop) {
        this.owner = owner;
        this.loop = loop;
    }

    EventLoop loop() {
        return loop;
    }

    UpstreamAddress upstream() {
        return owner.address();
    }

    int idleCount() {
        return idle.size();
    }

    /** Open connections (leased and idle); read from any thread, possibly a little stale. */
    int openCount() {
        return open;
    }

    /** Failed connection attempts so far; read from any thread, possibly a little stale. */
    long connectErrors() {
        return connectErrors;
    }

    Future<UpstreamConnection> acquire(Duration connectTimeout, boolean fresh) {
        if (!fresh) {
            UpstreamConnection conn;
            long now = System.nanoTime();
            while ((conn = idle.pollLast()) != null) {
                if (conn.channel().isActive() && !conn.idleTooLong(now)) {
                    conn.leased();
                    return loop.newSucceededFuture(conn);
                }
                conn.channel().close();
            }
        }
        return connect(connectTimeout);
    }

    private Future<UpstreamConnection> connect(Duration connectTimeout) {
        Promise<UpstreamConnection> promise = loop.newPromise();
        UpstreamConnection conn = new UpstreamConnection(this);
        UpstreamAddress address = owner.address();
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(owner.transport().socketChannel())
                .resolver(owner.resolver())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("http", new HttpClientCodec(decoderConfig(), false, false));
                        ch.pipeline().addLast("upstream", conn);
                    }
                });
        ChannelFuture connect = bootstrap.connect(InetSocketAddress.createUnresolved(address.host(), address.port()));
        connect.addListener(f -> {
            if (f.isSuccess()) {
                open++;
                connect.channel().closeFuture().addListener(c -> open--);
                conn.leased();
                promise.setSuccess(conn);
            } else {
                connectErrors++;
                promise.setFailure(f.cause());
            }
        });
        return promise;
    }

    void release(UpstreamConnection conn) {
        if (closed || !conn.channel().isActive() || idle.size() >= owner.maxIdlePerLoop()) {
            conn.channel().close();
            return;
        }
        conn.idle(System.nanoTime());
        idle.addLast(conn);
        scheduleSweep();
    }

    void remove(UpstreamConnection conn) {
        idle.remove(conn);
    }

    void close() {
        closed = true;
        UpstreamConnection conn;
        while ((conn = idle.pollFirst()) != null) {
            conn.channel().close();
        }
    }

    /** Closes connections idle longer than the pool's idle timeout; runs while the pool holds any. */
    private void scheduleSweep() {
        if (sweepScheduled) {
            return;
        }
        sweepScheduled = true;
        long period = Math.max(1, owner.idleTimeout().toMillis() / 2);
        loop.schedule(this::sweep, period, TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        sweepScheduled = false;
        long cutoff = System.nanoTime() - owner.idleTimeout().toNanos();
        UpstreamConnection oldest;
        while ((oldest = idle.peekFirst()) != null && oldest.idleSinceNanos() - cutoff <= 0) {
            idle.pollFirst();
            oldest.channel().close();
        }
        if (!idle.isEmpty()) {
            scheduleSweep();
        }
    }

    /** Backends may send big cookies and many headers; chunks of 64 KiB keep large bodies cheap to relay. */
    private static HttpDecoderConfig decoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(64 * 1024);
    }
}
