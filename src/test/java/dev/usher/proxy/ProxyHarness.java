package dev.usher.proxy;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.net.Transport;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.upstream.BackendStatus;
import dev.usher.upstream.UpstreamPools;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.DefaultNameResolver;
import io.netty.resolver.InetSocketAddressResolver;
import io.netty.util.concurrent.EventExecutor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Usher's HTTP/1.1 proxy path on {@link EmbeddedSocket}s: a client connection with the real pipeline's proxy
 * handlers (slowloris guard, HTTP codec, {@link Http1ProxyHandler}) and backend connections made by the real
 * {@code UpstreamPool}, all on the test thread. Shared by the exchange tests and the JMH benchmark of the proxy path.
 */
public final class ProxyHarness implements AutoCloseable {
    private final UpstreamPools pools = new UpstreamPools(new Transport("embedded", null, null, EmbeddedSocket.class),
            new LiteralsOnly());
    private final RuleServices services = new RuleServices();
    private final RouteTable table;
    private final RouteTableHolder routes;

    /** @param sites the {@code sites:} section of a config, indented by two spaces */
    public ProxyHarness(String sites) throws Exception {
        UsherConfig config = ConfigLoader.parse("listen: {https: off}\nsites:\n" + sites, "harness.yaml");
        table = RouteTable.compile(config, pools, services);
        routes = RouteTableHolder.of(table);
    }

    /** A new client connection from 203.0.113.7, active and reading. */
    public EmbeddedSocket client() {
        EmbeddedSocket client = new EmbeddedSocket(new InetSocketAddress("203.0.113.7", 50000));
        ClientTimeouts timeouts = new ClientTimeouts(table.config().timeouts());
        client.pipeline()
                .addLast(Http1ProxyHandler.TIMEOUTS_NAME, timeouts)
                .addLast(Http1ProxyHandler.CODEC_NAME, new HttpServerCodec())
                .addLast("proxy", new Http1ProxyHandler(routes, "http", timeouts));
        try {
            client.register();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return client;
    }

    /** Sends {@code text} (ISO-8859-1) from the peer of {@code channel}: one read batch. */
    public static void send(EmbeddedSocket channel, String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    /** Everything written to {@code channel} so far and not yet taken, as ISO-8859-1 text. */
    public static String received(EmbeddedSocket channel) {
        StringBuilder out = new StringBuilder();
        Object msg;
        while ((msg = channel.readOutbound()) != null) {
            if (msg instanceof ByteBuf buf) {
                out.append(buf.toString(StandardCharsets.ISO_8859_1));
                buf.release();
            }
        }
        return out.toString();
    }

    /** Requests in flight to the backends of {@code site} (what least_conn balances by). */
    public int inFlight(String site) {
        int n = 0;
        for (BackendStatus status : table.lookup(site).upstreams().status()) {
            n += status.inFlight();
        }
        return n;
    }

    /**
     * Backend addresses are IP literals here, resolved where Usher resolves them (the {@code Bootstrap}), on the
     * client's embedded event loop, which has no termination future for Netty's per-loop resolver cache.
     */
    private static final class LiteralsOnly extends AddressResolverGroup<InetSocketAddress> {
        @Override
        public AddressResolver<InetSocketAddress> getResolver(EventExecutor executor) {
            return newResolver(executor);
        }

        @Override
        protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
            return new InetSocketAddressResolver(executor, new DefaultNameResolver(executor));
        }
    }

    @Override
    public void close() {
        table.close();
        services.close();
        pools.close();
    }
}
