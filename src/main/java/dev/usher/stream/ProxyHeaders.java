package dev.usher.stream;

import dev.usher.config.ProxyProtocol;
import io.netty.channel.Channel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Writes the PROXY protocol header (HAProxy's, version 1 or 2) that tells a backend the client's address before the
 * client's first byte. The only class that uses Netty's encoder, so that its classes load only when a config sends
 * headers. Runs on the backend connection's event loop.
 */
final class ProxyHeaders {
    private ProxyHeaders() {
    }

    /**
     * Writes (without flushing) the header for a connection from {@code client} to {@code local} (Usher's end of the
     * client connection) as the first bytes on {@code backend}. An address that is not IP (never on a TCP relay)
     * gets the UNKNOWN form, which tells the backend to use the connection's own addresses.
     */
    static void write(Channel backend, ProxyProtocol version, SocketAddress client, SocketAddress local) {
        HAProxyMessage message = message(version, client, local);
        backend.pipeline().addFirst("proxy-header", HAProxyMessageEncoder.INSTANCE);
        try {
            backend.write(message, backend.voidPromise()); // encoded (and released) at once: this is its loop
        } finally {
            backend.pipeline().remove("proxy-header");
        }
    }

    static HAProxyMessage message(ProxyProtocol version, SocketAddress client, SocketAddress local) {
        HAProxyProtocolVersion v = version == ProxyProtocol.V1 ? HAProxyProtocolVersion.V1
                : HAProxyProtocolVersion.V2;
        if (!(client instanceof InetSocketAddress from && from.getAddress() != null)
                || !(local instanceof InetSocketAddress to && to.getAddress() != null)) {
            return new HAProxyMessage(v, HAProxyCommand.PROXY, HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0);
        }
        InetAddress source = from.getAddress();
        InetAddress destination = to.getAddress();
        boolean v4 = source instanceof Inet4Address && destination instanceof Inet4Address;
        HAProxyProxiedProtocol family = v4 ? HAProxyProxiedProtocol.TCP4 : HAProxyProxiedProtocol.TCP6;
        return new HAProxyMessage(v, HAProxyCommand.PROXY, family, text(source, v4), text(destination, v4),
                from.getPort(), to.getPort());
    }

    /** The address as the header writes it; an IPv4 address beside an IPv6 one as IPv4-mapped IPv6. */
    private static String text(InetAddress address, boolean v4) {
        if (v4 || !(address instanceof Inet4Address)) {
            return NetUtil.toAddressString(address);
        }
        return "::ffff:" + address.getHostAddress();
    }
}
