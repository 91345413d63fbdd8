package dev.usher;

import dev.usher.admin.AdminListener;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertStore;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.cert.Retry;
import dev.usher.config.UsherConfig;
import dev.usher.protocol.CompressBudget;
import dev.usher.protocol.HttpsInitializer;
import dev.usher.protocol.HttpsProtocols;
import dev.usher.tls.TlsContexts;
import dev.usher.tls.TlsInitializer;
import io.netty.channel.ChannelHandler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import dev.usher.protocol.ConnectionLimiter;
import dev.usher.protocol.Http1Initializer;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.server.Connections;
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
 * {@link #start}; {@link #shutdown} stops it gracefully, {@link #close} quickly. A start that fails half-way releases
 * what it had already taken.
 */
public final class Usher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Usher.class.getName());
    /** How often {@code tls: {cert, key}} files are looked at for a replacement. */
    private static final Duration FILE_POLL = Duration.ofSeconds(10);
    /** The grace period of {@link #close}: short, so that tests and tools stop quickly. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
    /** How long a stop waits for the event loops to take the drain request (they may be busy). */
    private static final Duration DRAIN_ASK = Duration.ofSeconds(1);

    private final EventLoopGroup loops;
    private final UpstreamPools pools;
    private final RuleServices services;
    private final RouteTableHolder routes;
    private final RouteTableHolder secureRoutes;
    private final CertManager certificates;
    private final HttpListener http;
    private final HttpListener https;
    private final AdminListener admin;
    /** Open client connections of both listeners, ended one by one at shutdown (see {@link Connections#drain}). */
    private final Connections connections;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private Usher(EventLoopGroup loops, UpstreamPools pools, RuleServices services, RouteTableHolder routes,
                  RouteTableHolder secureRoutes, CertManager certificates, HttpListener http, HttpListener https,
                  AdminListener admin, Connections connections) {
        this.loops = loops;
        this.pools = pools;
        this.services = services;
        this.routes = routes;
        this.secureRoutes = secureRoutes;
        this.certificates = certificates;
        this.http = http;
        this.https = https;
        this.admin = admin;
        this.connections = connections;
    }

    /** Starts serving {@code config} with as many event loops as this process has CPUs. */
    public static Usher start(UsherConfig config) throws ListenException {
        return start(config, CpuBudget.eventLoopThreads());
    }

    /** Starts serving {@code config} with {@code threads} event loops. */
    public static Usher start(UsherConfig config, int threads) throws ListenException {
        return start(config, threads, Retry.DEFAULT, FILE_POLL);
    }

    /**
     * Starts serving {@code config} with {@code threads} event loops; failed certificate orders are retried after
     * the waits of {@code retry}, and certificate files are looked at for changes every {@code filePoll}.
     */
    public static Usher start(UsherConfig config, int threads, Retry retry, Duration filePoll)
            throws ListenException {
        Transport transport = Transport.best();
        EventLoopGroup loops = transport.newGroup(threads, "loop");
        UpstreamPools pools = new UpstreamPools(transport);
        RuleServices services = new RuleServices();
        ChallengeAnswers answers = new ChallengeAnswers();
        boolean httpsOn = config.listen().httpsOn() && config.anyHttps();
        RouteTable plainTable = null;
        RouteTable secureTable = null;
        CertManager certificates = null;
        HttpListener https = null;
        HttpListener http = null;
        Connections connections = new Connections();
        try {
            ConnectionLimiter limiter = new ConnectionLimiter(config.limits().connections());
            CompressBudget compression = new CompressBudget();
            RouteTableHolder secureRoutes = null;
            int httpsPort = 443;
            if (httpsOn) {
                certificates = new CertManager(new CertStore(config.dataDir()), answers, retry, filePoll);
                certificates.apply(config);
                secureTable = RouteTable.compileSecure(config, pools, services);
                secureTable.startHealthChecks(loops, transport);
                secureRoutes = new RouteTableHolder(secureTable);
                https = HttpListener.bind(config.listen().https(), transport, loops,
                        connections.track(new HttpsInitializer(limiter, new TlsInitializer(certificates, answers,
                                new TlsContexts(TlsContexts.HTTP_PROTOCOLS),
                                protocolsFor(secureRoutes, compression)))));
                httpsPort = https.address().getPort();
            }
            plainTable = httpsOn
                    ? RouteTable.compilePlain(config, pools, services, httpsPort, answers::http01)
                    : RouteTable.compile(config, pools, services);
            plainTable.startHealthChecks(loops, transport);
            RouteTableHolder routes = new RouteTableHolder(plainTable);
            http = HttpListener.bind(config.listen().http(), transport, loops,
                    connections.track(new Http1Initializer(routes, limiter, compression)));
            AdminListener admin = config.admin() == null ? null
                    : AdminListener.bind(config.admin(), transport, loops, certificates);
            if (!transport.name().equals("epoll")) {
                LOG.log(Level.INFO, "epoll is not available ({0}); using Java NIO",
                        String.valueOf(Transport.epollUnavailabilityCause()));
            }
            int machine = CpuBudget.machineCpus();
            LOG.log(Level.INFO, "listening on http://{0}{1} with {2} event loop thread(s) ({3} transport; CPUs "
                            + "available to this process: {4}{5}); {6} site(s) from {7}",
                    hostPort(http.address()), https == null ? "" : " and https://" + hostPort(https.address()),
                    threads, transport.name(), Runtime.getRuntime().availableProcessors(),
                    machine > 0 ? ", on the machine: " + machine : "", config.sites().size(), config.source());
            if (admin != null) {
                LOG.log(Level.INFO, "admin endpoint on http://{0}", hostPort(admin.address()));
            }
            return new Usher(loops, pools, services, routes, secureRoutes, certificates, http, https, admin,
                    connections);
        } catch (ListenException | RuntimeException e) {
            if (http != null) {
                http.close();
            }
            if (https != null) {
                https.close();
            }
            if (plainTable != null) {
                plainTable.close();
            }
            if (secureTable != null) {
                secureTable.close();
            }
            if (certificates != null) {
                certificates.close();
            }
            services.close();
            pools.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static Supplier<ChannelHandler> protocolsFor(RouteTableHolder routes, CompressBudget compression) {
        return () -> new HttpsProtocols(routes, compression);
    }

    /** {@code 10 s}, {@code 1500 ms}. */
    static String describe(Duration grace) {
        return grace.toMillis() % 1000 == 0 ? grace.toSeconds() + " s" : grace.toMillis() + " ms";
    }

    private static String hostPort(InetSocketAddress address) {
        String host = address.getAddress().isAnyLocalAddress() ? "*" : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** The bound plain-HTTP address (with the real port when 0 was configured). */
    public InetSocketAddress httpAddress() {
        return http.address();
    }

    /** The bound HTTPS address, or null when Usher serves no HTTPS. */
    public InetSocketAddress httpsAddress() {
        return https == null ? null : https.address();
    }

    /** The admin endpoint's address, or null when it is off. */
    public InetSocketAddress adminAddress() {
        return admin == null ? null : admin.address();
    }

    /** The current route table holder of the plain-HTTP listener. */
    public RouteTableHolder routes() {
        return routes;
    }

    /** The certificate manager, or null when Usher serves no HTTPS. */
    public CertManager certificates() {
        return certificates;
    }

    /** Client connections open now (both listeners; the admin endpoint's are not counted). */
    public int openConnections() {
        return connections.size();
    }

    /**
     * Stops gracefully and logs one line about it: stops accepting on every listener, closes idle connections, lets
     * requests in flight finish for at most {@code grace} (an HTTP/1.1 connection closes after its response, sent
     * with {@code Connection: close}; HTTP/2 sends GOAWAY and finishes its open streams; a websocket is sent a close
     * frame with status 1001), then cuts whatever is still open and ends the event loops. Returns when all is
     * stopped. Only the first call of this or {@link #close} does anything.
     */
    public void shutdown(Duration grace) {
        stop(grace, true);
    }

    /** Stops like {@link #shutdown} with a grace period of one second, and without logging. */
    @Override
    public void close() {
        stop(CLOSE_GRACE, false);
    }

    private void stop(Duration grace, boolean report) {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        if (admin != null) {
            admin.close();
        }
        http.close();
        if (https != null) {
            https.close();
        }
        Connections.Summary drained = connections.drain(DRAIN_ASK.compareTo(grace) < 0 ? DRAIN_ASK : grace);
        if (report) {
            LOG.log(Level.INFO, "stopping: {0} connections, {1} requests in flight{2}, grace {3}",
                    drained.connections(), drained.requestsInFlight(),
                    drained.upgraded() == 0 ? "" : ", " + drained.upgraded() + " websocket/upgraded",
                    describe(grace));
        }
        if (!connections.awaitClosed(Duration.ofNanos(Math.max(0, deadline - System.nanoTime()))) && report) {
            LOG.log(Level.INFO, "grace period over: cutting {0} connection(s)", connections.size());
        }
        routes.get().close();
        if (secureRoutes != null) {
            secureRoutes.get().close();
        }
        if (certificates != null) {
            certificates.close();
        }
        services.close();
        pools.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
