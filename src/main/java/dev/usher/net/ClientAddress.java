package dev.usher.net;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The client's address on a TCP connection: the one a load balancer in front of Usher gave in a PROXY protocol
 * header ({@code listen: {proxy_protocol: [...]}}), or else the TCP peer's. Everything that names the client (logs,
 * allow/deny, rate limits, {@code X-Forwarded-For}) reads it here rather than from {@code remoteAddress()}.
 */
public final class ClientAddress {
    /** Set once, by the PROXY header reader, before any handler that asks for the address is added. */
    public static final AttributeKey<InetSocketAddress> FROM_PROXY_HEADER =
            AttributeKey.valueOf(ClientAddress.class, "fromProxyHeader");

    private ClientAddress() {
    }

    /** The client's address for {@code connection} (a TCP channel; for HTTP/2, the parent of the stream). */
    public static SocketAddress of(Channel connection) {
        InetSocketAddress told = connection.attr(FROM_PROXY_HEADER).get();
        return told != null ? told : connection.remoteAddress();
    }
}
