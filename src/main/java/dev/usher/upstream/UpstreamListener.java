package dev.usher.upstream;

/**
 * Receives what happens on a leased backend connection. Called on the connection's event loop, which is also the
 * event loop of the client connection that leased it, so implementations need no locking.
 */
public interface UpstreamListener {
    /** A decoded message from the backend ({@code HttpObject}, or a raw {@code ByteBuf} after an upgrade). */
    void upstreamRead(Object msg);

    /** The backend's current read batch is done: a good moment to flush towards the client. */
    void upstreamReadComplete();

    /** The backend connection's outbound buffer crossed a water mark. */
    void upstreamWritabilityChanged(boolean writable);

    /** The backend connection closed or failed; {@code cause} is null for a plain close. */
    void upstreamClosed(Throwable cause);
}
