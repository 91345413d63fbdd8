package dev.usher;

import dev.usher.cert.CertManager;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigError;
import dev.usher.config.UpstreamAddress;
import dev.usher.config.UsherConfig;
import dev.usher.net.Transport;
import dev.usher.observe.AccessLog;
import dev.usher.observe.Metrics;
import dev.usher.reload.Changes;
import dev.usher.reload.ReloadCounts;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;
import dev.usher.route.RouteTableHolder;
import dev.usher.server.Connections;
import dev.usher.server.CpuBudget;
import dev.usher.server.ListenException;
import dev.usher.server.OpenFileLimit;
import dev.usher.server.QuicNative;
import io.netty.channel.EventLoopGroup;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A running Usher: what outlives every config ({@link Shared}: event loops, backend pools, rule state, the
 * connection registry, the request observer) and the {@link Generation} in service (route tables, certificates,
 * listeners, access log). Start and reload take the same path: {@link GenerationBuilder} prepares the generation for
 * a config from the one in service ({@link Generation#NONE} at start), then one reference swap puts it in service
 * and what only the old one held is closed. {@link #shutdown} stops gracefully, {@link #close} quickly.
 *
 * <p>With {@code docker:}, the sites that containers announce with labels ({@link ContainerSites}) are merged into
 * every config the file gives, and a change of the containers reloads the same way as an edit of the file.
 *
 * <p>Threads: {@link #current} is read by every request (through the listeners' route holders) and written only
 * under this object's lock, by start, {@link #reload} and a change of the containers.
 */
public final class Usher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Usher.class.getName());
    /** How often {@code tls: {cert, key}} files are looked at for a replacement. */
    private static final Duration FILE_POLL = Duration.ofSeconds(10);
    /** The grace period of {@link #close}: short, so that tests and tools stop quickly. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);
    /** How long a stop waits for the event loops to take the drain request (they may be busy). */
    private static final Duration DRAIN_ASK = Duration.ofSeconds(1);

    /** Where an Usher is in its life. Guarded by this. */
    private enum State { STARTING, RUNNING, STOPPING, STOPPED }

    /** How long a start waits for the first container list when {@code docker:} is on. */
    private static final Duration FIRST_CONTAINER_LIST = Duration.ofSeconds(3);

    private final Shared shared;
    private final GenerationBuilder builder;
    private final ReloadCounts reloads = new ReloadCounts();
    private final ContainerSites containers = new ContainerSites(this::containersChanged);
    private volatile Generation current = Generation.NONE;
    private volatile Reloader reloader;
    private State state = State.STARTING;
    /** The config as read from the file, before the label sites are merged in. Guarded by this. */
    private UsherConfig fileConfig;

    private Usher(Shared shared) {
        this.shared = shared;
        this.builder = new GenerationBuilder(shared, () -> current, () -> reloader);
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
        Shared shared = Shared.create(config, threads, retry, filePoll, quicNative);
        Usher usher = new Usher(shared);
        try {
            usher.begin(config, threads);
            return usher;
        } catch (ListenException | RuntimeException e) {
            usher.containers.close();
            shared.close();
            throw e;
        }
    }

    /**
     * Puts the first generation in service and says where Usher listens. With {@code docker:}, the containers are
     * listed first (for a few seconds at most), so that the first generation has their sites.
     */
    private synchronized void begin(UsherConfig fromFile, int threads) throws ListenException {
        containers.follow(fromFile.docker(), FIRST_CONTAINER_LIST);
        fileConfig = fromFile;
        UsherConfig config = containers.merge(fromFile);
        Generation first;
        try {
            first = builder.prepare(Generation.NONE, config, new ArrayList<>());
        } catch (GenerationBuilder.Failure e) {
            if (e.getCause() instanceof ListenException listen) {
                throw listen;
            }
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
        try {
            commit(Generation.NONE, first);
        } catch (RuntimeException e) {
            first.closeAllBut(Generation.NONE);
            throw e;
        }
        state = State.RUNNING;
        Transport transport = shared.transport();
        if (!transport.name().equals("epoll")) {
            LOG.log(Level.INFO, "epoll is not available ({0}); using Java NIO",
                    String.valueOf(Transport.epollUnavailabilityCause()));
        }
        String degraded = first.https() != null && config.listen().http3On()
                ? shared.quicNative().get().degradedNote(config.listen()) : null;
        if (degraded != null) {
            LOG.log(Level.WARNING, degraded);
        }
        int machine = CpuBudget.machineCpus();
        LOG.log(Level.INFO, "listening on http://{0}{1}{2} with {3} event loop thread(s) ({4} transport; CPUs "
                        + "available to this process: {5}{6}); {7} site(s) from {8}{9}",
                hostPort(first.http().address()),
                first.https() == null ? "" : " and https://" + hostPort(first.https().address()),
                first.quic() == null ? "" : " (HTTP/3 on UDP " + hostPort(first.quic().address()) + ")",
                threads, transport.name(), Runtime.getRuntime().availableProcessors(),
                machine > 0 ? ", on the machine: " + machine : "", fromFile.sites().size(), config.source(),
                config.docker() == null ? "" : " and " + config.labelSites().size() + " from container labels");
        if (shared.metrics() != null) {
            shared.metrics().with(new ServerMetrics(this));
        }
        if (first.admin() != null) {
            LOG.log(Level.INFO, "admin endpoint on http://{0}", hostPort(first.admin().address()));
        }
    }

    /**
     * Puts {@code next} in service: backend pools and rule state are shared, so connections to backends that stay
     * are kept; certificates for new HTTPS sites are in place (local ones) or ordered (ACME) before the sites are
     * routed; listeners whose address changed are bound anew before the old ones are closed (their open
     * connections stay). If anything cannot be done (a listener cannot be bound), the old config keeps serving
     * entirely and the result says why. Open connections and requests in flight are never cut; changed limits and
     * timeouts apply to connections accepted from now on. Reloads run one at a time. {@code next} is the config as
     * the file gives it: the sites that containers announce with labels ({@code docker:}) are merged in, so a reload
     * from the file keeps them.
     */
    public synchronized ReloadResult reload(UsherConfig next) {
        if (state != State.RUNNING) {
            return ReloadResult.failed(List.of(new ConfigError(next.source(), 0, 0, "", "Usher is stopping")),
                    Duration.ZERO);
        }
        ReloadResult result = apply(containers.merge(next));
        if (result.ok()) {
            fileConfig = next;
            containers.follow(next.docker(), Duration.ZERO); // a changed socket: the new daemon's list reloads again
        }
        return result;
    }

    /**
     * The containers' label sites changed: the same reload as for a file edit, from the last config the file gave
     * and the containers listed now. Called on the container watcher's thread (after its quiet period).
     */
    private void containersChanged() {
        ReloadResult result;
        synchronized (this) {
            if (state != State.RUNNING) {
                return;
            }
            UsherConfig next = containers.merge(fileConfig);
            if (next.equals(current.config())) {
                return;
            }
            result = apply(next);
        }
        reloads.record(result);
        if (result.ok()) {
            LOG.log(Level.INFO, "reloaded (container labels): {0}; took {1} ms", result.changes().summary(),
                    String.valueOf(result.took().toMillis()));
        } else {
            result.errors().forEach(e -> LOG.log(Level.ERROR, e.format()));
            LOG.log(Level.ERROR, "not reloaded (container labels): the previous sites keep serving");
        }
    }

    /** Prepares and commits the generation for {@code next} (file and label sites merged). */
    private ReloadResult apply(UsherConfig next) {
        long started = System.nanoTime();
        Generation previous = current;
        List<String> listeners = new ArrayList<>();
        Generation prepared;
        try {
            prepared = builder.prepare(previous, next, listeners);
        } catch (GenerationBuilder.Failure e) {
            return ReloadResult.failed(List.of(new ConfigError(next.source(), 0, 0, e.setting(), e.getMessage())),
                    Duration.ofNanos(System.nanoTime() - started));
        }
        commit(previous, prepared);
        Changes changes = Changes.between(previous.config(), next);
        for (String listener : listeners) {
            changes = changes.withListener(listener);
        }
        if (prepared.http() != previous.http() || prepared.https() != previous.https()
                || prepared.admin() != previous.admin()) {
            LOG.log(Level.INFO, "reload: now listening on http://{0}{1}{2}", hostPort(prepared.http().address()),
                    prepared.https() == null ? "" : " and https://" + hostPort(prepared.https().address()),
                    prepared.admin() == null ? "" : "; admin endpoint on http://"
                            + hostPort(prepared.admin().address()));
        }
        return ReloadResult.succeeded(changes, Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * Puts {@code next} in service in place of {@code previous}. Cannot fail for a reason of the config: the
     * certificates of its sites first (local ones made now, stored ones loaded, ACME orders in the background;
     * names no longer served retired), the health checks of its route tables, then the swap, after which its new
     * listeners accept; then what only {@code previous} held is closed.
     */
    private void commit(Generation previous, Generation next) {
        CertManager certificates = next.certificates();
        if (certificates != null) {
            certificates.start(); // a new manager's threads; nothing for one handed over
            certificates.apply(next.config());
        }
        next.tables().forEach(table -> table.startHealthChecks(shared.loops(), shared.transport()));
        next.streams().startHealthChecks(shared.loops(), shared.transport());
        current = next;
        next.startAccepting(previous);
        if (next.quic() != null) {
            shared.altSvc().advertise(next.quic().address().getPort());
        } else {
            shared.altSvc().withdraw();
        }
        shared.limiter().setMax(OpenFileLimit.ofThisProcess().connections(next.config().limits().connections()));
        shared.crowdsec().follow(next.config().crowdsec());
        if (shared.fleet() != null) {
            shared.fleet().loaded(next.config());
        }
        if (shared.accessLogs() != null && next.accessLog() != previous.accessLog()) {
            if (next.accessLog() != null) {
                next.accessLog().start();
            }
            shared.accessLogs().replace(next.accessLog()); // the old one writes what it had queued, then closes
        }
        previous.closeAllBut(next);
        Set<UpstreamAddress> inUse = new HashSet<>();
        next.config().sites().forEach(site -> {
            inUse.addAll(site.upstreams());
            if (site.traffic().forwardAuth() != null) {
                inUse.add(site.traffic().forwardAuth().server()); // the auth server's pool is a backend's too
            }
        });
        next.config().streams().forEach(stream -> stream.targets().forEach(t -> inUse.addAll(t.upstreams())));
        int closed = shared.pools().retainOnly(inUse);
        if (closed > 0) {
            LOG.log(Level.DEBUG, "reload: closed the connection pools of {0} removed backend(s)", closed);
        }
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

    /** How many reloads succeeded and failed, and when the last ones happened. */
    public ReloadCounts reloads() {
        return reloads;
    }

    /** The generation in service, for {@link ServerMetrics}. */
    Generation generation() {
        return current;
    }

    /** What outlives generations, for {@link ServerMetrics}. */
    Shared shared() {
        return shared;
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
        return shared.loops();
    }

    /** The Netty transport in use (epoll, or NIO where epoll cannot load). */
    public Transport transport() {
        return shared.transport();
    }

    /** The config in service (the last one a reload put in place). */
    public UsherConfig config() {
        return current.config();
    }

    /** True when requests are observed (metrics or an access log): only then can an access log be reopened. */
    public boolean observesRequests() {
        return shared.accessLogs() != null;
    }

    /** The bound plain-HTTP address (with the real port when 0 was configured). */
    public InetSocketAddress httpAddress() {
        return current.http().address();
    }

    /** The bound HTTPS address, or null when Usher serves no HTTPS. */
    public InetSocketAddress httpsAddress() {
        Generation g = current;
        return g.https() == null ? null : g.https().address();
    }

    /** The UDP address HTTP/3 is served on, or null when it is not. */
    public InetSocketAddress http3Address() {
        Generation g = current;
        return g.quic() == null ? null : g.quic().address();
    }

    /** The admin endpoint's address, or null when it is off. */
    public InetSocketAddress adminAddress() {
        Generation g = current;
        return g.admin() == null ? null : g.admin().address();
    }

    /** The HTTPS listener's routes, or null when Usher has never served HTTPS. */
    public RouteTableHolder secureRoutes() {
        return current.secure() == null ? null : () -> current.secure();
    }

    /** The plain-HTTP listener's routes. */
    public RouteTableHolder routes() {
        return () -> current.plain();
    }

    /** The metrics served at the admin endpoint's {@code /metrics}, or null when the admin endpoint is off. */
    public Metrics metrics() {
        return shared.metrics();
    }

    /** The access log in service, or null when no request is logged. */
    public AccessLog accessLog() {
        return current.accessLog();
    }

    /** Reopens the access log's file, if one is in service (SIGUSR1). */
    public void reopenAccessLog() {
        AccessLog log = current.accessLog();
        if (log != null) {
            log.reopen();
        }
    }

    /** The certificate manager, or null when Usher serves no HTTPS. */
    public CertManager certificates() {
        return current.certificates();
    }

    /** Client connections open now (both listeners; the admin endpoint's are not counted). */
    public int openConnections() {
        return shared.connections().size();
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
        Generation last;
        synchronized (this) { // waits for a reload in progress; none starts after
            if (state != State.RUNNING) {
                return;
            }
            state = State.STOPPING;
            last = current;
        }
        containers.close(); // no more reloads from container events
        long deadline = System.nanoTime() + grace.toNanos();
        last.tcpListeners().forEach(Usher::closeQuietly);
        // The UDP socket stays open through the drain: closing it would end every QUIC connection at once. HTTP/3
        // connections get GOAWAY and close when their streams are done; new QUIC handshakes are still answered.
        shared.altSvc().withdraw();
        Connections connections = shared.connections();
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
        // The access log goes last, with the event loops (Shared.close): requests cut at the end still get a line.
        last.closeAllBut(Generation.holding(last.accessLog()));
        shared.close();
        synchronized (this) {
            state = State.STOPPED;
        }
    }

    private static void closeQuietly(AutoCloseable listener) {
        try {
            listener.close();
        } catch (Exception e) {
            LOG.log(Level.DEBUG, "closing a listener at stop: " + e);
        }
    }
}
