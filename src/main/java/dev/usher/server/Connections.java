package dev.usher.server;

import dev.usher.net.DrainEvent;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The open client connections of all listeners, so that a graceful stop can end each one the right way
 * ({@link #drain}). Tracking costs one set insertion per connection and nothing per request; a closed connection
 * leaves the set by itself.
 *
 * <p>Thread-safe. A connection accepted while the drain is under way (the listener was closing) is drained as soon
 * as its pipeline is set up.
 */
public final class Connections {
    private static final AttributeKey<Boolean> DRAINED = AttributeKey.valueOf("usher.drained");

    private final ChannelGroup open = new DefaultChannelGroup("clients", GlobalEventExecutor.INSTANCE);
    private volatile boolean draining;

    /**
     * Wraps a listener's child handler: each accepted connection is tracked, then set up by {@code initializer}.
     */
    public ChannelHandler track(ChannelHandler initializer) {
        return new Tracker(initializer);
    }

    /** Connections open now. */
    public int size() {
        return open.size();
    }

    /**
     * Asks every open connection to end: idle HTTP/1.1 ones close at once, busy ones after their response,
     * HTTP/2 ones send GOAWAY and close when their streams are done, websockets get a close frame (see
     * {@link DrainEvent}). Waits at most {@code wait} for the event loops to take the request, and returns what
     * they reported.
     */
    public Summary drain(Duration wait) {
        draining = true;
        List<Future<Drained>> asked = new ArrayList<>();
        for (Channel ch : open) {
            asked.add(ch.eventLoop().submit(() -> drainOne(ch)));
        }
        long deadline = System.nanoTime() + wait.toNanos();
        int connections = 0;
        int requests = 0;
        int upgraded = 0;
        for (Future<Drained> future : asked) {
            long left = deadline - System.nanoTime();
            if (!future.awaitUninterruptibly(Math.max(0, left), TimeUnit.NANOSECONDS) || !future.isSuccess()) {
                continue;
            }
            Drained drained = future.getNow();
            if (drained == null) {
                continue; // closed meanwhile, or already drained
            }
            connections++;
            requests += drained.requests();
            upgraded += drained.upgraded() ? 1 : 0;
        }
        return new Summary(connections, requests, upgraded);
    }

    /** Waits until every tracked connection has closed, for at most {@code wait}; true when all did. */
    public boolean awaitClosed(Duration wait) {
        return open.newCloseFuture().awaitUninterruptibly(wait.toMillis());
    }

    /** On the connection's event loop: tells it to end, or closes it through its pipeline when nothing claims that. */
    private static Drained drainOne(Channel ch) {
        if (!ch.isActive() || ch.attr(DRAINED).setIfAbsent(Boolean.TRUE) != null) {
            return null;
        }
        DrainEvent event = new DrainEvent();
        ch.pipeline().fireUserEventTriggered(event);
        if (!event.claimed()) {
            // HTTP/2 (the codec sends GOAWAY and waits for the open streams) or a connection still in its TLS
            // handshake: a close through the pipeline is the right ending for both.
            Http2FrameCodec h2 = ch.pipeline().get(Http2FrameCodec.class);
            int streams = h2 == null ? 0 : h2.connection().numActiveStreams();
            ch.close();
            return new Drained(streams, false);
        }
        return new Drained(event.requestsInFlight(), event.upgraded());
    }

    private record Drained(int requests, boolean upgraded) {
    }

    /**
     * What a drain found.
     *
     * @param connections      connections asked to end
     * @param requestsInFlight requests (HTTP/2 streams included) they were serving
     * @param upgraded         websockets and other upgraded connections among them
     */
    public record Summary(int connections, int requestsInFlight, int upgraded) {
    }

    @ChannelHandler.Sharable
    private final class Tracker extends ChannelInitializer<Channel> {
        private final ChannelHandler initializer;

        Tracker(ChannelHandler initializer) {
            this.initializer = initializer;
        }

        @Override
        protected void initChannel(Channel ch) {
            open.add(ch);
            ch.pipeline().addLast(initializer);
            if (draining) {
                ch.eventLoop().execute(() -> drainOne(ch));
            }
        }
    }
}
