package dev.usher.tls;

import io.netty.channel.ChannelHandler;

/**
 * The sites on the HTTPS port whose TLS Usher does not terminate: asked by the {@link TlsHandshakeRouter} with the
 * ClientHello's server name before any certificate is chosen. A name it serves gets a relay, which replaces the
 * router and receives the buffered ClientHello as its first bytes; any other name (or none) goes on to the
 * terminating path. Called on the connection's event loop; must not block.
 */
@FunctionalInterface
public interface Passthrough {
    /** Relays nothing: every connection is terminated. */
    Passthrough NONE = serverName -> null;

    /** A new relay for a connection that asked for {@code serverName}, or null when no passthrough site has it. */
    ChannelHandler relayFor(String serverName);
}
