package dev.usher.observe;

import io.netty.channel.Channel;

import java.util.concurrent.atomic.AtomicInteger;

/** The client connections a listener has open now, for the metrics. Thread-safe. */
public final class OpenConnections {
    private final AtomicInteger open = new AtomicInteger();

    /** Counts {@code channel} until it closes (one listener per connection, not per request). */
    public void track(Channel channel) {
        open.incrementAndGet();
        channel.closeFuture().addListener(f -> open.decrementAndGet());
    }

    /** How many are open. */
    public int count() {
        return open.get();
    }
}
