package dev.usher.admin;

import dev.usher.observe.Metrics;
import dev.usher.cert.CertManager;
import dev.usher.config.ListenAddress;
import dev.usher.reload.Reloader;
import dev.usher.server.HttpListener;
import dev.usher.server.ListenException;
import dev.usher.server.Transport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;

import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The admin endpoint ({@code admin:}, {@code 127.0.0.1:2019} by default): a small HTTP/1.1 API on a loopback
 * address for {@code usher renew}, {@code usher reload} and, later, metrics and the web UI.
 */
public final class AdminListener implements AutoCloseable {
    /** Admin requests are small; anything bigger is refused by the aggregator with 413. */
    private static final int MAX_REQUEST = 64 * 1024;

    private final HttpListener listener;

    private AdminListener(HttpListener listener) {
        this.listener = listener;
    }

    /**
     * Binds {@code address}. Both suppliers are asked per request, since a reload may change what they give.
     *
     * @param certificates the certificate manager, or null when Usher serves no HTTPS
     * @param reloader     what {@code POST /reload} runs, or null when Usher was not started from a file
     * @param metrics      what {@code GET /metrics} serves, or null for none
     * @param secretHash   the bcrypt hash of the secret every request must carry, or null for none (asked per
     *                     request: a reload may change it)
     */
    public static AdminListener bind(ListenAddress address, Transport transport, EventLoopGroup loops,
                                     Supplier<CertManager> certificates, Supplier<Reloader> reloader,
                                     Metrics metrics, Supplier<String> secretHash) throws ListenException {
        AdminSecret secret = new AdminSecret(secretHash, task -> Thread.ofVirtual().name("admin-secret").start(task));
        return new AdminListener(HttpListener.bind(address, transport, loops, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.config().setAutoRead(true);
                ch.pipeline()
                        .addLast(new ReadTimeoutHandler(60))
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(MAX_REQUEST))
                        .addLast(new AdminHandler(certificates, reloader, metrics, secret));
            }
        }));
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return listener.address();
    }

    @Override
    public void close() {
        listener.close();
    }
}
