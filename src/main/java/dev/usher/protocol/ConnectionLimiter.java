package dev.usher.protocol;

import dev.usher.rules.Bans;
import io.netty.channel.Channel;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who may open a client connection: not an address CrowdSec banned ({@link Bans}), and not one over the cap of
 * connections open at once. A refused connection is closed as soon as it is accepted, before a byte is read.
 */
public final class ConnectionLimiter {
    private final AtomicInteger open = new AtomicInteger();
    private final Bans bans;
    /** Volatile: a reload may change it; connections already open are never closed for it. */
    private volatile int max;

    /** @param max the most connections open at once; share one limiter between listeners for one global cap */
    public ConnectionLimiter(int max) {
        this(max, new Bans());
    }

    /** @param bans the addresses refused at once */
    public ConnectionLimiter(int max, Bans bans) {
        this.max = max;
        this.bans = bans;
    }

    /** Admits {@code channel} from its own remote address (a TCP connection). */
    public boolean admit(Channel channel) {
        return admit(channel, channel.remoteAddress());
    }

    /**
     * Counts {@code channel} until it closes, or returns false (without counting) when {@code peer} is banned or
     * the cap is reached.
     */
    public boolean admit(Channel channel, SocketAddress peer) {
        if (bans.active() && peer instanceof InetSocketAddress inet && banned(inet.getAddress())) {
            return false;
        }
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        channel.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    private boolean banned(InetAddress address) {
        return address != null && bans.banned(address);
    }

    /** Changes the cap for connections accepted from now on ({@code limits.connections} after a reload). */
    public void setMax(int max) {
        this.max = max;
    }
}
