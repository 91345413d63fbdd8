package dev.usher;

import dev.usher.admin.AdminListener;
import dev.usher.cert.CertManager;
import dev.usher.observe.AccessLog;
import dev.usher.observe.AccessLogSwitch;
import dev.usher.observe.Metrics;
import dev.usher.observe.OpenConnections;
import dev.usher.observe.RequestObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import dev.usher.cert.CertStore;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.cert.Retry;
import dev.usher.config.ListenAddress;
import dev.usher.config.UsherConfig;
import dev.usher.protocol.AltSvc;
import dev.usher.protocol.CompressBudget;
import dev.usher.protocol.Http3Pipeline;
import dev.usher.protocol.QuicHandshakes;
import dev.usher.server.QuicListener;
import dev.usher.server.QuicNative;
import dev.usher.tls.QuicContexts;
import dev.usher.protocol.HttpsInitializer;
import dev.usher.protocol.HttpsProtocols;
import dev.usher.reload.ReloadCounts;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;
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
import dev.usher.net.Transport;
import dev.usher.upstream.UpstreamPools;
import io.netty.channel.EventLoopGroup;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A running Usher: event loops, backend pools, the route table and the listeners, wired from one config. Start with
 * {@link #start}; {@link #shutdown} stops it gracefully, {@link #close} quickly. A start that fails half-way releases
 * what it had already taken.
 * {@link #reload} puts another config in service without closing a connection.
 *
 * <p>Threads: the fields a reload replaces (listeners, certificates, the HTTPS route holder) are volatile and are
 * written only under this object's lock, by {@link #reload} (see {@link Reconfiguration}).
 */
public final class Usher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Usher.class.getName());
    /** How often {@code tls: {cert, key}} files are looked at for a replacement. */
    private static final Duration FILE_POLL = Duration.ofSeconds(10);
    /** The grace period of {@link #close}: short, so that tests and tools stop quickly. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
    /** How long a stop waits for the event loops to take the drain request (they may be busy). */
    private static final Duration DRAIN_ASK = Duration.ofSeconds(1);

    final EventLoopGroup loops;
    final UpstreamPools pools;
    final RuleServices services;
    final RouteTableHolder routes;
    /** Null while Usher serves no HTTPS; a reload may create it. */
    volatile RouteTableHolder secureRoutes;
    volatile CertManager certificates;
    volatile HttpListener http;
    volatile HttpListener https;
    /** The UDP socket HTTP/3 is served on; null while HTTP/3 is off (or cannot be served here). */
    volatile QuicListener quic;
    volatile AdminListener admin;
    /** Open client connections of both listeners, ended one by one at shutdown (see {@link Connections#drain}). */
    final Connections connections;
    /** What a reload needs to bind listeners and start certificates the way {@link #start} did. */
    final Transport transport;
    final ChallengeAnswers answers;
    final ConnectionLimiter limiter;
    final CompressBudget compression;
    final Retry retry;
    final Duration filePoll;
    /** Every request ends here: metrics and the access log (a no-op when neither is in use). */
    final RequestObserver observer;
    /** Open plain-HTTP client connections, for the metrics. */
    final OpenConnections httpConnections;
    /** Open HTTP/3 (QUIC) connections, for the metrics. */
    final OpenConnections quicConnections = new OpenConnections();
    /** What HTTPS responses over TCP advertise in Alt-Svc: follows {@link #quic}. */
    final AltSvc altSvc;
    /** Whether this platform can serve HTTP/3 at all; asked only when a config wants HTTP/3. */
    private final Supplier<QuicNative> quicNative;
    /** Null when the admin endpoint (which serves them) is off. */
    private final Metrics metrics;
    /**
     * Where logged requests go; null when nothing observes requests (neither the admin endpoint's metrics nor an
     * access log were on at start), and then a reload cannot turn the access log on.
     */
    final AccessLogSwitch accessLogs;
    private final ReloadCounts reloads = new ReloadCounts();
    private volatile Reloader reloader;
    /** Guarded by this: no reload starts after a stop began. */
    private boolean closed;
    private final AtomicBoolean stopped = new AtomicBoolean();

    private Usher(EventLoopGroup loops, UpstreamPools pools, RuleServices services, RouteTableHolder routes,
                  RouteTableHolder secureRoutes, CertManager certificates, HttpListener http, HttpListener https,
                  Connections connections, Transport transport, ChallengeAnswers answers,
                  ConnectionLimiter limiter, CompressBudget compression, Retry retry, Duration filePoll,
                  RequestObserver observer, OpenConnections httpConnections, Metrics metrics, AccessLogSwitch accessLogs,
                  AltSvc altSvc, Supplier<QuicNative> quicNative) {
        this.loops = loops;
        this.pools = pools;
        this.services = services;
        this.routes = routes;
        this.secureRoutes = secureRoutes;
        this.certificates = certificates;
        this.http = http;
        this.https = https;
        this.connections = connections;
        this.transport = transport;
        this.answers = answers;
        this.limiter = limiter;
        this.compression = compression;
        this.retry = retry;
        this.filePoll = filePoll;
        this.observer = observer;
        this.httpConnections = httpConnections;
        this.metrics = metrics;
        this.accessLogs = accessLogs;
        this.altSvc = altSvc;
        this.quicNative = quicNative;
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
        return start(config, threads, retry, filePoll, QuicNative.onFirstUse());
    }

    /**
     * As {@link #start(UsherConfig, int, Retry, Duration)}, with this platform's QUIC support given rather than
     * found: tests start a real Usher as on a platform without the native QUIC library.
     */
    public static Usher start(UsherConfig config, int threads, Retry retry, Duration filePoll, QuicNative quicNative)
            throws ListenException {
        return start(config, threads, retry, filePoll, () -> quicNative);
    }

    private static Usher start(UsherConfig config, int threads, Retry retry, Duration filePoll,
                               Supplier<QuicNative> quicNative) throws ListenException {
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
        AccessLogSwitch accessLogs = null;
        QuicListener quic = null;
        AltSvc altSvc = new AltSvc();
        try {
            // Requests are observed only when something uses them: metrics need the admin endpoint, the access log
            // a site (or the top level) that turns it on. Otherwise no recorder joins the pipelines.
            Metrics metrics = config.admin() == null ? null : new Metrics();
            if (metrics != null || config.anyAccessLog()) {
                accessLogs = new AccessLogSwitch(config.anyAccessLog() ? openAccessLog(config) : null);
            }
            RequestObserver observer = RequestObserver.both(metrics, accessLogs);
            OpenConnections httpConnections = new OpenConnections();
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
                                protocolsFor(secureRoutes, compression, observer, altSvc)))));
                httpsPort = https.address().getPort();
            }
            plainTable = httpsOn
                    ? RouteTable.compilePlain(config, pools, services, httpsPort, answers::http01)
                    : RouteTable.compile(config, pools, services);
            plainTable.startHealthChecks(loops, transport);
            RouteTableHolder routes = new RouteTableHolder(plainTable);
            http = HttpListener.bind(config.listen().http(), transport, loops,
                    connections.track(new Http1Initializer(routes, limiter, compression, observer, httpConnections)));
            if (!transport.name().equals("epoll")) {
                LOG.log(Level.INFO, "epoll is not available ({0}); using Java NIO",
                        String.valueOf(Transport.epollUnavailabilityCause()));
            }
            String degraded = httpsOn && config.listen().http3On()
                    ? quicNative.get().degradedNote(config.listen()) : null;
            if (degraded != null) {
                LOG.log(Level.WARNING, degraded);
            }
            int machine = CpuBudget.machineCpus();
            Usher usher = new Usher(loops, pools, services, routes, secureRoutes, certificates, http, https,
                    connections, transport, answers, limiter, compression, retry, filePoll, observer,
                    httpConnections, metrics, accessLogs, altSvc, quicNative);
            if (httpsOn && usher.servesHttp3(config.listen())) {
                quic = usher.bindQuic(config, https.address(), certificates, secureRoutes);
                usher.quic = quic;
                altSvc.advertise(quic.address().getPort());
            }
            LOG.log(Level.INFO, "listening on http://{0}{1}{2} with {3} event loop thread(s) ({4} transport; CPUs "
                            + "available to this process: {5}{6}); {7} site(s) from {8}",
                    hostPort(http.address()), https == null ? "" : " and https://" + hostPort(https.address()),
                    quic == null ? "" : " (HTTP/3 on UDP " + hostPort(quic.address()) + ")",
                    threads, transport.name(), Runtime.getRuntime().availableProcessors(),
                    machine > 0 ? ", on the machine: " + machine : "", config.sites().size(), config.source());
            if (metrics != null) {
                metrics.with(new ServerMetrics(usher));
            }
            if (config.admin() != null) {
                usher.admin = usher.bindAdmin(config.admin()); // on failure, the catch below releases everything
                LOG.log(Level.INFO, "admin endpoint on http://{0}", hostPort(usher.admin.address()));
            }
            return usher;
        } catch (ListenException | RuntimeException e) {
            if (http != null) {
                http.close();
            }
            if (https != null) {
                https.close();
            }
            if (quic != null) {
                quic.close();
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
            if (accessLogs != null) {
                accessLogs.close();
            }
            throw e;
        }
    }

    static AccessLog openAccessLog(UsherConfig config) {
        try {
            return new AccessLog(config.accessLog().file(), config.accessLog().on());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the access log " + config.accessLog().file(), e);
        }
    }

    static Supplier<ChannelHandler> protocolsFor(RouteTableHolder routes, CompressBudget compression,
                                                 RequestObserver observer, AltSvc altSvc) {
        return () -> new HttpsProtocols(routes, compression, observer, altSvc);
    }

    /** True when {@code listen} asks for HTTP/3 and this platform can serve it (the native library is loaded now). */
    boolean servesHttp3(dev.usher.config.Listen listen) {
        return listen.http3On() && quicNative.get().serves(listen);
    }

    /**
     * Binds the HTTP/3 listener: UDP on the HTTPS listener's host and actual port, certificates from
     * {@code certificates} by SNI, requests through {@code secureRoutes}. Its connections are tracked with the
     * others (graceful close at stop).
     */
    QuicListener bindQuic(UsherConfig config, InetSocketAddress httpsAddress, CertManager certificates,
                          RouteTableHolder secureRoutes) throws ListenException {
        QuicHandshakes handshakes = new QuicHandshakes();
        ChannelHandler codec = Http3Pipeline.codec(new QuicContexts(certificates), config, handshakes,
                connections.track(Http3Pipeline.connectionInitializer(secureRoutes, limiter, compression, observer,
                        quicConnections, handshakes)));
        return QuicListener.bind(config.listen().https().host(), httpsAddress.getPort(), transport, loops, codec);
    }

    /** Binds the admin endpoint; it asks this Usher for the current certificates and reloader on each request. */
    AdminListener bindAdmin(ListenAddress address) throws ListenException {
        return AdminListener.bind(address, transport, loops, () -> certificates, () -> reloader, metrics,
                () -> routes.get().config().adminSecret(), this::routeTables);
    }

    /**
     * Puts {@code next} in service: backend pools and rule state are shared, so connections to backends that stay
     * are kept; certificates for new HTTPS sites are in place (local ones) or ordered (ACME) before the sites are
     * routed; both route tables are swapped; listeners whose address changed are bound anew before the old ones
     * are closed (their open connections stay). If anything cannot be done (a listener cannot be bound), the old
     * config keeps serving entirely and the result says why. Open connections and requests in flight are never cut;
     * changed limits and timeouts apply to connections accepted from now on. Reloads run one at a time.
     */
    public synchronized ReloadResult reload(UsherConfig next) {
        if (closed) {
            return ReloadResult.failed(java.util.List.of(new dev.usher.config.ConfigError(next.source(), 0, 0, "",
                    "Usher is stopping")), Duration.ZERO);
        }
        return new Reconfiguration(this, next).run();
    }

    /**
     * Makes {@code file} the config that {@code POST /reload} on the admin endpoint reads, and returns the
     * {@link Reloader} for the other triggers (the file watcher, SIGHUP) to share.
     */
    public Reloader reloadFrom(Path file) {
        Reloader made = new Reloader(file, this::reload, reloads);
        reloader = made;
        return made;
    }

    /** The running route tables, the HTTPS one first (its routes have the backends of HTTPS sites). */
    private java.util.List<RouteTable> routeTables() {
        RouteTableHolder secure = secureRoutes;
        return secure == null ? java.util.List.of(routes.get()) : java.util.List.of(secure.get(), routes.get());
    }

    /** How many reloads succeeded and failed, and when the last ones happened. */
    public ReloadCounts reloads() {
        return reloads;
    }

    /** {@code 10 s}, {@code 1500 ms}. */
    static String describe(Duration grace) {
        return grace.toMillis() % 1000 == 0 ? grace.toSeconds() + " s" : grace.toMillis() + " ms";
    }

    static String hostPort(InetSocketAddress address) {
        String host = address.getAddress().isAnyLocalAddress() ? "*" : address.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    /** The event loops every connection of this Usher runs on (they outlive reloads). */
    public EventLoopGroup eventLoops() {
        return loops;
    }

    /** The Netty transport in use (epoll, or NIO where epoll cannot load). */
    public Transport transport() {
        return transport;
    }

    /** The config in service (the last one a reload put in place). */
    public UsherConfig config() {
        return routes.get().config();
    }

    /** True when requests are observed (metrics or an access log): only then can an access log be reopened. */
    public boolean observesRequests() {
        return accessLogs != null;
    }

    /** The bound plain-HTTP address (with the real port when 0 was configured). */
    public InetSocketAddress httpAddress() {
        return http.address();
    }

    /** The bound HTTPS address, or null when Usher serves no HTTPS. */
    public InetSocketAddress httpsAddress() {
        return https == null ? null : https.address();
    }

    /** The UDP address HTTP/3 is served on, or null when it is not. */
    public InetSocketAddress http3Address() {
        QuicListener listener = quic;
        return listener == null ? null : listener.address();
    }

    /** The admin endpoint's address, or null when it is off. */
    public InetSocketAddress adminAddress() {
        return admin == null ? null : admin.address();
    }

    /** The HTTPS listener's route table holder, or null when Usher serves no HTTPS. */
    public RouteTableHolder secureRoutes() {
        return secureRoutes;
    }

    /** The current route table holder of the plain-HTTP listener. */
    public RouteTableHolder routes() {
        return routes;
    }

    /** The metrics served at the admin endpoint's {@code /metrics}, or null when the admin endpoint is off. */
    public Metrics metrics() {
        return metrics;
    }

    /** The access log in service, or null when no request is logged. */
    public AccessLog accessLog() {
        return accessLogs == null ? null : accessLogs.current();
    }

    /** Reopens the access log's file, if one is in service (SIGUSR1). */
    public void reopenAccessLog() {
        if (accessLogs != null) {
            accessLogs.reopen();
        }
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
        synchronized (this) {
            closed = true; // waits for a reload in progress; none starts after
        }
        long deadline = System.nanoTime() + grace.toNanos();
        if (admin != null) {
            admin.close();
        }
        http.close();
        if (https != null) {
            https.close();
        }
        // The UDP socket stays open through the drain: closing it would end every QUIC connection at once. HTTP/3
        // connections get GOAWAY and close when their streams are done; new QUIC handshakes are still answered.
        altSvc.withdraw();
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
        if (quic != null) {
            quic.close();
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
        if (accessLogs != null) {
            accessLogs.close();
        }
    }
}
