package dev.usher.whoami;

import java.util.concurrent.atomic.AtomicLong;

/** What one {@link Whoami} has seen: accepted TCP connections and HTTP request heads. Thread-safe. */
final class Counters {
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();

    void connectionAccepted() {
        accepted.incrementAndGet();
    }

    void requestSeen() {
        requests.incrementAndGet();
    }

    long acceptedConnections() {
        return accepted.get();
    }

    long requestsSeen() {
        return requests.get();
    }
}
