package dev.usher.observe;

/**
 * Told of every request when it ends: its response written in full, or the exchange ended early. The one seam between
 * serving and observing; the access log and the metrics are its consumers.
 *
 * <p>Threading: called on event loops, many at once. Implementations must neither block nor lock, and should not
 * allocate much.
 */
public interface RequestObserver {
    /** A request ended. */
    void requestEnded(RequestRecord request);

    /** Tells {@code first}, then {@code second}; either may be null. Null when both are. */
    static RequestObserver both(RequestObserver first, RequestObserver second) {
        if (first == null) {
            return second;
        }
        if (second == null) {
            return first;
        }
        return request -> {
            first.requestEnded(request);
            second.requestEnded(request);
        };
    }
}
