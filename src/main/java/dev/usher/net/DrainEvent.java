package dev.usher.net;

/**
 * Usher is stopping gracefully: fired as a user event at each open client connection, on its event loop. The
 * handler at the end of the pipeline claims it and ends the connection its own way: an HTTP/1.1 connection closes
 * at once when idle, or after the response in flight (sent with {@code Connection: close}); a websocket relay sends
 * the client a close frame with status 1001 ("going away"). An event nobody claimed (HTTP/2, a TLS handshake in
 * progress) is answered by the sender with a close through the pipeline, which on HTTP/2 sends GOAWAY and lets the
 * open streams finish.
 *
 * <p>One event per connection; not thread-safe (read by the sender after the event loop handled it).
 */
public final class DrainEvent {
    private boolean claimed;
    private int requestsInFlight;
    private boolean upgraded;

    /** A fresh event for one connection. */
    public DrainEvent() {
    }

    /** The connection ends itself once its {@code requests} in flight (0 or more) are answered. */
    public void claim(int requests) {
        claimed = true;
        requestsInFlight = requests;
    }

    /** The connection is an upgraded one (a websocket or another protocol relayed as raw bytes). */
    public void claimUpgraded() {
        claimed = true;
        upgraded = true;
    }

    /** True when a handler took charge of ending the connection. */
    public boolean claimed() {
        return claimed;
    }

    /** Requests the connection was serving when the event came (for the shutdown log line). */
    public int requestsInFlight() {
        return requestsInFlight;
    }

    /** True for an upgraded connection (websocket or other raw relay). */
    public boolean upgraded() {
        return upgraded;
    }
}
