package dev.usher.tls;

import io.netty.buffer.ByteBuf;

/** The server name of a ClientHello, for relays that route by it without terminating TLS (streams with sni:). */
public final class ServerNames {
    private ServerNames() {
    }

    /**
     * The SNI host name (lower-case, no trailing dot) of a ClientHello handshake body, as Netty's
     * {@code SslClientHelloHandler} hands it over; null when it has none, is malformed, or is no ClientHello.
     */
    public static String of(ByteBuf clientHello) {
        if (clientHello == null) {
            return null;
        }
        ClientHello hello = ClientHello.parse(clientHello);
        return hello == null ? null : hello.serverName();
    }
}
