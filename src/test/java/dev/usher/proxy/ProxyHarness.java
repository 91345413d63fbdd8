package dev.usher.proxy;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.net.Transport;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.upstream.BackendStatus;
import dev.usher.upstream.UpstreamPool;
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

    /** A new HTTP/1.1 client connection from 203.0.113.7, active and reading. */
    public EmbeddedSocket client() {
        EmbeddedSocket client = new EmbeddedSocket(new InetSocketAddress("203.0.113.7", 50000));
        ClientTimeouts timeouts = new ClientTimeouts(table.config().timeouts());
        client.pipeline()
                .addLast(Http1ProxyHandler.TIMEOUTS_NAME, timeouts)
                .addLast(Http1ProxyHandler.CODEC_NAME, new HttpServerCodec())
                .addLast("proxy", new Http1ProxyHandler(routes, "http", timeouts));
        return registered(client);
    }

    /**
     * A new HTTP/2 stream from 203.0.113.7, past the HTTP/2 codec: its inbound and outbound messages are HTTP
     * objects, as {@code Http2StreamFrameToHttpObjectCodec} delivers and takes them.
     */
    public EmbeddedSocket stream() {
        EmbeddedSocket stream = new EmbeddedSocket(new InetSocketAddress("203.0.113.7", 50000));
        stream.pipeline().addLast("proxy", new Http2StreamProxyHandler(routes));
        return registered(stream);
    }

    private static EmbeddedSocket registered(EmbeddedSocket channel) {
        try {
            channel.register();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return channel;
    }

    /** The exchange under way on {@code channel} (an HTTP/1.1 client connection or an HTTP/2 stream), or null. */
    static ProxyExchange exchange(EmbeddedSocket channel) {
        Object proxy = channel.pipeline().get("proxy");
        Exchange exchange = proxy instanceof Http1ProxyHandler http1 ? http1.exchange()
                : proxy instanceof Http2StreamProxyHandler stream ? stream.exchange() : null;
        return (ProxyExchange) exchange;
    }

    /**
     * Sends {@code bytes} from the client as one read batch, like {@link #send}, and returns the exchange the request
     * started (which may have ended within the batch), or null when it was answered without one.
     */
    static ProxyExchange start(EmbeddedSocket client, ByteBuf bytes) {
        client.writeOneInbound(bytes);
        ProxyExchange started = exchange(client);
        client.flushInbound();
        return started;
    }

    static ProxyExchange start(EmbeddedSocket client, String text) {
        return start(client, Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    /** Sends {@code text} (ISO-8859-1) from the peer of {@code channel}: one read batch. */
    public static void send(EmbeddedSocket channel, String text) {
        channel.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1));
    }

    /**
     * Makes {@code channel} unwritable or writable again, as a peer that stops or starts reading would (its
     * socket buffer full, then drained), and delivers the writability event.
     */
    public static void writable(EmbeddedSocket channel, boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, writable);
        channel.runPendingTasks();
    }

    /**
     * Waits out {@code millis}, then runs the timers that are due on {@code channel}'s event loop and whatever they
     * lead to (a retry's connection attempt), until nothing more is to run now.
     */
    public static void after(EmbeddedSocket channel, long millis) throws InterruptedException {
        Thread.sleep(millis);
        for (int i = 0; i < 100; i++) {
            channel.runPendingTasks();
            if (!channel.hasPendingTasks()) {
                return;
            }
        }
        throw new AssertionError("the event loop keeps finding work");
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

    /** Backend connections idle in the pools, ready for reuse. */
    public int idleConnections() {
        int n = 0;
        for (UpstreamPool pool : pools.all().values()) {
            n += pool.stats().idle();
        }
        return n;
    }

    /** Failures in a row of the backends of {@code site} (passive health). */
    public int failures(String site) {
        int n = 0;
        for (BackendStatus status : table.lookup(site).upstreams().status()) {
            n += status.consecutiveFailures();
        }
        return n;
    }

    /**
     * Runs the tasks that another thread hands to {@code channel}'s event loop (a password check's verdict) until
     * {@code done}, for at most 10 s. The embedded loop's task queue is not thread-safe: this thread only looks at it
     * while the other one may add (it adds once, to an empty queue), and runs tasks only after the add is seen.
     */
    public static void runUntil(EmbeddedSocket channel, java.util.function.BooleanSupplier done)
            throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not done within 10 s");
            }
            Thread.sleep(1);
            if (channel.hasPendingTasks()) {
                channel.runPendingTasks();
            }
        }
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
