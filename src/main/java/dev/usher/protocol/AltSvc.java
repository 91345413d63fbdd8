package dev.usher.protocol;

/**
 * What HTTPS responses over TCP advertise in {@code Alt-Svc}: {@code h3=":PORT"; ma=2592000} while the QUIC listener
 * is up on PORT, nothing otherwise. Usher sets it when the QUIC listener is bound and clears it when it closes (a
 * reload may do either), so a client is never sent to a UDP port nobody answers on.
 *
 * <p>Thread-safe: written by start, reload and stop, read by every HTTPS response.
 */
public final class AltSvc {
    /** How long a client may remember the advertisement: 30 days, as Caddy and most servers send. */
    static final long MAX_AGE_SECONDS = 2_592_000;

    private volatile String value;

    /** Advertises HTTP/3 on UDP {@code port} from now on. */
    public void advertise(int port) {
        value = "h3=\":" + port + "\"; ma=" + MAX_AGE_SECONDS;
    }

    /** Stops advertising HTTP/3 (the QUIC listener is closed). */
    public void withdraw() {
        value = null;
    }

    /** The header value, or null when HTTP/3 is not offered. */
    public String value() {
        return value;
    }
}
