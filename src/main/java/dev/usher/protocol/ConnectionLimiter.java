package dev.usher.protocol;

import io.netty.channel.Channel;

import java.util.concurrent.atomic.AtomicInteger;

/** Caps the client connections open at once; one over the cap is closed as soon as it is accepted. */
public final class ConnectionLimiter {
    private final AtomicInteger open = new AtomicInteger();
    /** Volatile: a reload may change it; connections already open are never closed for it. */
    private volatile int max;

    /** @param max the most connections open at once; share one limiter between listeners for one global cap */
    public ConnectionLimiter(int max) {
        this.max = max;
    }

    /** Counts {@code channel} until it closes, or returns false (without counting) when the cap is reached. */
    public boolean admit(Channel channel) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        channel.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    /** Changes the cap for connections accepted from now on ({@code limits.connections} after a reload). */
    public void setMax(int max) {
        this.max = max;
    }

}
