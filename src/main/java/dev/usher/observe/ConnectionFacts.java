package dev.usher.observe;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;

import java.net.InetSocketAddress;

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

    /** @param connection the TCP connection (for HTTP/2, the parent of the stream channels) */
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
        client = connection.remoteAddress() instanceof InetSocketAddress inet && inet.getAddress() != null
                ? inet.getAddress().getHostAddress() : "";
        SslHandler ssl = connection.pipeline().get(SslHandler.class);
        tls = ssl == null ? null : ssl.engine().getSession().getProtocol();
    }
}
