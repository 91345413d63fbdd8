package dev.usher;

import dev.usher.config.UsherConfig;
import dev.usher.protocol.ConnectionLimiter;
import dev.usher.protocol.Http1Initializer;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.server.CpuBudget;
import dev.usher.server.HttpListener;
import dev.usher.server.ListenException;
import dev.usher.server.Transport;
import dev.usher.upstream.UpstreamPools;
import io.netty.channel.EventLoopGroup;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A running Usher: event loops, backend pools, the route table and the listeners, wired from one config. Start with
 * {@link #start}; {@link #close} stops it. A start that fails half-way releases what it had already taken.
 */
public final class Usher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Usher.class.getName());

    private final EventLoopGroup loops;
    private final UpstreamPools pools;
    private final RuleServices services;
    private final RouteTableHolder routes;
    private final HttpListener http;

    private Usher(EventLoopGroup loops, UpstreamPools pools, RuleServices services, RouteTableHolder routes,
                  HttpListener http) {
        this.loops = loops;
        this.pools = pools;
        this.services = services;
        this.routes = routes;
        this.http = http;
    }

    /** Starts serving {@code config} with as many event loops as this process has CPUs. */
    public static Usher start(UsherConfig config) throws ListenException {
        return start(config, CpuBudget.eventLoopThreads());
    }

    /** Starts serving {@code config} with {@code threads} event loops. */
    public static Usher start(UsherConfig config, int threads) throws ListenException {
        Transport transport = Transport.best();
        EventLoopGroup loops = transport.newGroup(threads, "loop");
        UpstreamPools pools = new UpstreamPools(transport);
        RuleServices services = new RuleServices();
        RouteTable table = null;
        try {
            table = RouteTable.compile(config, pools, services);
            table.startHealthChecks(loops, transport);
            RouteTableHolder routes = new RouteTableHolder(table);
            ConnectionLimiter limiter = new ConnectionLimiter(config.limits().connections());
            HttpListener http = HttpListener.bind(config.listen().http(), transport, loops,
                    new Http1Initializer(routes, limiter));
            if (!transport.name().equals("epoll")) {
                LOG.log(Level.INFO, "epoll is not available ({0}); using Java NIO",
                        String.valueOf(Transport.epollUnavailabilityCause()));
            }
            int machine = CpuBudget.machineCpus();
            LOG.log(Level.INFO, "listening on http://{0} with {1} event loop thread(s) ({2} transport; CPUs "
                            + "available to this process: {3}{4}); {5} site(s) from {6}",
                    hostPort(http.address()), threads, transport.name(), Runtime.getRuntime().availableProcessors(),
                    machine > 0 ? ", on the machine: " + machine : "", config.sites().size(), config.source());
            return new Usher(loops, pools, services, routes, http);
        } catch (ListenException | RuntimeException e) {
            if (table != null) {
                table.close();
            }
            services.close();
            pools.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static String hostPort(InetSocketAddress address) {
        String host = address.getAddress().isAnyLocalAddress() ? "*" : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** The bound plain-HTTP address (with the real port when 0 was configured). */
    public InetSocketAddress httpAddress() {
        return http.address();
    }

    /** The current route table holder. */
    public RouteTableHolder routes() {
        return routes;
    }

    /** Stops accepting, closes backend pools and ends the event loops (open connections are cut). */
    @Override
    public void close() {
        http.close();
        routes.get().close();
        services.close();
        pools.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
