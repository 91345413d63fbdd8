package dev.usher.observe;

/**
 * Told when relayed connections and UDP sessions start and end: the metrics and the access log. Called on event
 * loops, many at once; implementations neither block nor lock.
 */
public interface StreamObserver {
    /** Observes nothing. */
    StreamObserver NONE = new StreamObserver() {
        @Override
        public void streamEnded(StreamRecord record) {
        }
    };

    /** A connection (or session) of {@code stream} started: every one, also one refused at once. */
    default void streamStarted(String stream) {
    }

    /** A connection (or session) ended: exactly once for each {@link #streamStarted}. */
    void streamEnded(StreamRecord record);

    /** A datagram for {@code stream} was dropped (no session could be made for it). */
    default void datagramDropped(String stream) {
    }

    /** Tells {@code first}, then {@code second}; either may be null. */
    static StreamObserver both(StreamObserver first, StreamObserver second) {
        if (first == null) {
            return second == null ? NONE : second;
        }
        if (second == null) {
            return first;
        }
        return new StreamObserver() {
            @Override
            public void streamStarted(String stream) {
                first.streamStarted(stream);
                second.streamStarted(stream);
            }

            @Override
            public void streamEnded(StreamRecord record) {
                first.streamEnded(record);
                second.streamEnded(record);
            }

            @Override
            public void datagramDropped(String stream) {
                first.datagramDropped(stream);
                second.datagramDropped(stream);
            }
        };
    }
}
