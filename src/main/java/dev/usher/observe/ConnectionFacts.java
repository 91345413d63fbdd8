package dev.usher.observe;

import dev.usher.net.ClientAddress;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;

import io.netty.handler.codec.quic.QuicChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What every request on one client connection shares in the access log: the client's IP and the TLS version. Worked
 * out once, on the first request that ends, and kept (for HTTP/2, shared by all streams of the connection).
 *
 * <p>Threading: the connection's event loop only.
 */
public final class ConnectionFacts {
    private final Channel connection;
    private String client;
    private String tls;

    /**
     * @param connection the TCP connection (for HTTP/2, the parent of the stream channels), or the QUIC connection
     *                   (the parent of HTTP/3 request streams)
     */
    public ConnectionFacts(Channel connection) {
        this.connection = connection;
    }

    String client() {
        if (client == null) {
            load();
        }
        return client;
    }

    /** The TLS version, or null over plain HTTP. */
    String tls() {
        if (client == null) {
            load();
        }
        return tls;
    }

    private void load() {
        if (connection instanceof QuicChannel quic) {
            // QUIC: the address is the UDP peer's (remoteAddress() is a connection ID); TLS 1.3 is built in.
            client = address(quic.remoteSocketAddress());
            tls = quic.sslEngine() == null ? null : quic.sslEngine().getSession().getProtocol();
            return;
        }
        client = address(ClientAddress.of(connection));
        SslHandler ssl = connection.pipeline().get(SslHandler.class);
        tls = ssl == null ? null : ssl.engine().getSession().getProtocol();
    }

    private static String address(SocketAddress address) {
        return address instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : "";
    }
}
