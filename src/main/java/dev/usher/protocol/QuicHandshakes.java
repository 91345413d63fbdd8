package dev.usher.protocol;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many QUIC handshakes of one UDP socket are under way: connections set up at a first Initial packet and not yet
 * established. {@link QuicAdmission} counts them; {@link QuicRetryTokens} asks clients to prove their address once
 * there are many. Thread-safe.
 */
public final class QuicHandshakes {
    private final AtomicInteger inFlight = new AtomicInteger();

    void started() {
        inFlight.incrementAndGet();
    }

    void ended() {
        inFlight.decrementAndGet();
    }

    /** Handshakes under way now. */
    public int inFlight() {
        return inFlight.get();
    }
}
