package dev.usher;

import dev.usher.config.ListenAddress;
import dev.usher.config.StreamSetting;
import dev.usher.server.HttpListener;
import dev.usher.stream.TcpStreamInitializer;
import dev.usher.stream.UdpStreamListener;

import java.net.InetSocketAddress;

/**
 * The bound socket of one stream: a TCP listener (with its initializer, which counts its connections) or a UDP one.
 * Belongs to a {@link Generation} and is handed over to the next one when the stream's address and transport stay.
 *
 * @param listen   the address as configured
 * @param protocol TCP or UDP
 * @param tcp      the TCP listener, or null for UDP
 * @param stream   the TCP listener's child handler, or null for UDP
 * @param udp      the UDP listener, or null for TCP
 */
record StreamSocket(ListenAddress listen, StreamSetting.Protocol protocol, HttpListener tcp,
                    TcpStreamInitializer stream, UdpStreamListener udp) implements AutoCloseable {

    boolean serves(StreamSetting setting) {
        return listen.equals(setting.listen()) && protocol == setting.protocol();
    }

    InetSocketAddress address() {
        return tcp != null ? tcp.address() : udp.address();
    }

    void startAccepting() {
        if (tcp != null) {
            tcp.startAccepting();
        } else {
            udp.startAccepting();
        }
    }

    /** TCP: stops accepting (open connections stay). UDP: closes the socket and its sessions. */
    @Override
    public void close() {
        if (tcp != null) {
            tcp.close();
        } else {
            udp.close();
        }
    }

    /** {@code tcp 127.0.0.1:2222}, as the reload's listener changes say it. */
    String describe() {
        return protocol.label() + " " + Usher.hostPort(address());
    }
}
