package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.config.UpstreamScheme;
import dev.usher.upstream.BackendConnector.Protocol;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The connections to one backend owned by one event loop. Touched only from that event loop, so it needs no locks;
 * a client connection always leases from the pool of its own loop, which keeps both channels on one thread.
 *
 * <p>An HTTP/1.1 backend (plain or over TLS) gets keep-alive connections, one exchange at a time each, kept idle for
 * the next. An HTTP/2 backend ({@code h2c://}, or {@code https://} whose ALPN answer was h2) gets one multiplexed
 * {@link H2Connection}, a stream per exchange; requests that come while it is being connected wait for it rather
 * than opening more. Whether an {@code https://} backend offering h2 takes it is learnt from its first handshake.
 */
final class LoopPool implements ConnectionOwner {
    /** What this loop knows of the backend's protocol. */
    private enum Speaks { UNKNOWN, HTTP1, H2 }

    private final UpstreamPool owner;
    private final EventLoop loop;
    /** Most recently released last: taking from the end reuses warm connections and lets cold ones time out. */
    private final ArrayDeque<UpstreamConnection> idle = new ArrayDeque<>();
    private Speaks speaks;
    /** The HTTP/2 connection streams are opened on, or null. */
    private H2Connection h2;
    /** Requests waiting for the HTTP/2 connection being made; null when none is. */
    private ArrayDeque<Waiter> waitingForH2;
    private boolean sweepScheduled;
    private boolean closed;
    /**
     * Connections open to the backend from this loop, and failed connection attempts. Written on the loop only; read
     * from elsewhere for metrics, where a slightly stale value is fine (hence no volatile on the request path).
     */
    private int open;
    private long connectErrors;

    private record Waiter(Promise<UpstreamConnection> promise, Duration connectTimeout) {
    }

    LoopPool(UpstreamPool owner, EventLoop loop) {
        this.owner = owner;
        this.loop = loop;
        UpstreamAddress address = owner.address();
        this.speaks = address.scheme() == UpstreamScheme.H2C ? Speaks.H2
                : address.mayUseH2() ? Speaks.UNKNOWN : Speaks.HTTP1;
    }

    EventLoop loop() {
        return loop;
    }

    @Override
    public String upstream() {
        return owner.address().toString();
    }

    long idleTimeoutMillis() {
        return owner.idleTimeout().toMillis();
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

    /**
     * @param fresh   never an idle connection (HTTP/1.1) or the current multiplexed one (HTTP/2): a retry after a
     *                stale keep-alive
     * @param upgrade the request asks to upgrade (a websocket): an HTTP/1.1 connection even to a backend that
     *                speaks h2 when asked
     */
    Future<UpstreamConnection> acquire(Duration connectTimeout, boolean fresh, boolean upgrade) {
        if (speaks != Speaks.HTTP1 && !(upgrade && owner.address().scheme() == UpstreamScheme.HTTPS)) {
            return stream(connectTimeout, fresh);
        }
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
        Promise<UpstreamConnection> promise = loop.newPromise();
        connect(connectTimeout, upgrade, promise);
        return promise;
    }

    /** A stream of the HTTP/2 connection: the current one, the one being made, or a new one. */
    private Future<UpstreamConnection> stream(Duration connectTimeout, boolean fresh) {
        if (!fresh && h2 != null && h2.takesStreams()) {
            return h2.openStream();
        }
        Promise<UpstreamConnection> promise = loop.newPromise();
        if (!fresh && waitingForH2 != null) {
            waitingForH2.add(new Waiter(promise, connectTimeout));
            return promise;
        }
        if (!fresh) {
            waitingForH2 = new ArrayDeque<>(4);
        }
        connect(connectTimeout, false, promise);
        return promise;
    }

    /** Connects anew; the promise gets an HTTP/1.1 connection or a stream, by what the backend speaks. */
    private void connect(Duration connectTimeout, boolean http1Only, Promise<UpstreamConnection> promise) {
        UpstreamConnection http1 = new UpstreamConnection(this);
        H2Connection[] multiplexed = new H2Connection[1];
        Future<Protocol> connected = BackendConnector.connect(owner, loop, connectTimeout, http1Only,
                owner.address().scheme() == UpstreamScheme.H2C, (ch, protocol) -> {
                    if (protocol == Protocol.HTTP1) {
                        ch.pipeline().addLast("http", new HttpClientCodec(decoderConfig(), false, false));
                        ch.pipeline().addLast("upstream", http1);
                    } else {
                        multiplexed[0] = H2Connection.install(ch, this, this::h2Gone);
                    }
                });
        connected.addListener(f -> {
            if (!f.isSuccess()) {
                connectErrors++;
                promise.tryFailure(f.cause());
                failWaiters(f.cause());
                return;
            }
            Channel channel = multiplexed[0] != null ? multiplexed[0].channel() : http1.channel();
            open++;
            channel.closeFuture().addListener(c -> open--);
            if (connected.getNow() == Protocol.HTTP1) {
                if (!http1Only) {
                    speaks = Speaks.HTTP1; // an https:// backend that did not take h2
                }
                http1.leased();
                promise.trySuccess(http1);
                retryWaitersOverHttp1();
                return;
            }
            speaks = Speaks.H2;
            if (closed) {
                multiplexed[0].close();
            } else {
                h2 = multiplexed[0];
            }
            cascade(multiplexed[0].openStream(), promise);
            ArrayDeque<Waiter> waiting = waitingForH2;
            waitingForH2 = null;
            if (waiting != null) {
                for (Waiter w : waiting) {
                    cascade(multiplexed[0].openStream(), w.promise());
                }
            }
        });
    }

    private static void cascade(Future<UpstreamConnection> from, Promise<UpstreamConnection> to) {
        from.addListener(f -> {
            if (f.isSuccess()) {
                to.trySuccess(from.getNow());
            } else {
                to.tryFailure(f.cause());
            }
        });
    }

    private void failWaiters(Throwable cause) {
        ArrayDeque<Waiter> waiting = waitingForH2;
        waitingForH2 = null;
        if (waiting != null) {
            waiting.forEach(w -> w.promise().tryFailure(cause));
        }
    }

    /** The backend chose HTTP/1.1 after all: the requests that waited for an HTTP/2 connection get their own. */
    private void retryWaitersOverHttp1() {
        ArrayDeque<Waiter> waiting = waitingForH2;
        waitingForH2 = null;
        if (waiting != null) {
            waiting.forEach(w -> cascade(acquire(w.connectTimeout(), false, false), w.promise()));
        }
    }

    /** The HTTP/2 connection takes no more streams (GOAWAY, closed): the next request makes a new one. */
    private void h2Gone(H2Connection gone) {
        if (h2 == gone) {
            h2 = null;
        }
    }

    @Override
    public void release(UpstreamConnection conn) {
        if (closed || !conn.channel().isActive() || idle.size() >= owner.maxIdlePerLoop()) {
            conn.channel().close();
            return;
        }
        conn.idle(System.nanoTime());
        idle.addLast(conn);
        scheduleSweep();
    }

    @Override
    public void remove(UpstreamConnection conn) {
        idle.remove(conn);
    }

    void close() {
        closed = true;
        UpstreamConnection conn;
        while ((conn = idle.pollFirst()) != null) {
            conn.channel().close();
        }
        if (h2 != null) {
            h2.close();
            h2 = null;
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
    static HttpDecoderConfig decoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(64 * 1024);
    }
}
