package dev.usher;

import dev.usher.cert.ChallengeAnswers;
import dev.usher.cert.Retry;
import dev.usher.config.UsherConfig;
import dev.usher.crowdsec.CrowdSecBouncer;
import dev.usher.net.Transport;
import dev.usher.observe.AccessLogSwitch;
import dev.usher.observe.Metrics;
import dev.usher.observe.OpenConnections;
import dev.usher.observe.RequestObserver;
import dev.usher.observe.StreamMetrics;
import dev.usher.observe.StreamObserver;
import dev.usher.protocol.AltSvc;
import dev.usher.protocol.CompressBudget;
import dev.usher.protocol.ConnectionLimiter;
import dev.usher.rules.Bans;
import dev.usher.rules.RuleServices;
import dev.usher.server.Connections;
import dev.usher.server.OpenFileLimit;
import dev.usher.server.QuicNative;
import dev.usher.upstream.UpstreamPools;
import io.netty.channel.EventLoopGroup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What outlives every {@link Generation}: made once when Usher starts, used by every config it serves, released when
 * it stops. Connections to backends, rule state (rate limits, cached logins), open client connections and the
 * counters behind the metrics all survive a reload because they live here.
 *
 * @param loops           the event loops every connection runs on
 * @param pools           keep-alive backend connections, by backend address
 * @param services        rule state shared by the sites (rate-limit tables, the password verifier)
 * @param answers         ACME challenge answers, published for the listeners
 * @param limiter         the client connection limit ({@code limits.connections}; a reload changes its maximum)
 * @param observer        every request ends here: metrics and the access log (a no-op when neither is in use)
 * @param streamObserver  every relayed connection and UDP session ends here: stream metrics and the access log
 * @param accessLogs      where logged requests go; null when nothing observed requests at start, and then a reload
 *                        cannot turn the access log on
 * @param metrics         what the admin endpoint serves at {@code /metrics}; null when it was off at start
 * @param connections     every open client connection, for the drain at a graceful stop
 * @param altSvc          what HTTPS responses over TCP advertise for HTTP/3: follows the generation's QUIC listener
 * @param quicNative      whether this platform can serve HTTP/3; asked only when a config wants it
 * @param retry           waits between failed certificate orders
 * @param filePoll        how often {@code tls: {cert, key}} files are looked at for a replacement
 * @param crowdsec        follows the CrowdSec local API of the config in service into {@code services.bans}
 */
record Shared(EventLoopGroup loops, Transport transport, UpstreamPools pools, RuleServices services,
              ChallengeAnswers answers, ConnectionLimiter limiter, CompressBudget compression,
              RequestObserver observer, StreamObserver streamObserver, AccessLogSwitch accessLogs, Metrics metrics,
              Connections connections,
              OpenConnections httpConnections, OpenConnections quicConnections, AltSvc altSvc,
              Supplier<QuicNative> quicNative, Retry retry, Duration filePoll, CrowdSecBouncer crowdsec,
              FleetMembership fleet) {
    private static final System.Logger LOG = System.getLogger(Usher.class.getName());

    /**
     * Makes the shared parts for a server that starts with {@code first}. Metrics exist only when the admin endpoint
     * is on at start, request observation only when metrics or an access log want it: otherwise no recorder joins
     * the pipelines.
     */
    static Shared create(UsherConfig first, int threads, Retry retry, Duration filePoll,
                         Supplier<QuicNative> quicNative) {
        Transport transport = Transport.best();
        Metrics metrics = first.admin() == null ? null : new Metrics();
        AccessLogSwitch accessLogs = metrics != null || first.anyAccessLog() ? new AccessLogSwitch(null) : null;
        StreamMetrics streamMetrics = metrics == null ? null : new StreamMetrics();
        if (streamMetrics != null) {
            metrics.with(streamMetrics);
        }
        RuleServices services = new RuleServices();
        ChallengeAnswers answers = new ChallengeAnswers();
        FleetMembership fleet = first.storage() == null ? null : FleetMembership.join(first, answers);
        return new Shared(transport.newGroup(threads, "loop"), transport, new UpstreamPools(transport),
                services, answers, connectionLimiter(first.limits().connections(), services.bans),
                new CompressBudget(), RequestObserver.both(metrics, accessLogs),
                StreamObserver.both(streamMetrics, accessLogs), accessLogs, metrics,
                new Connections(), new OpenConnections(), new OpenConnections(), new AltSvc(), quicNative, retry,
                filePoll, new CrowdSecBouncer(services.bans), fleet);
    }

    /**
     * The cap on client connections: {@code limits.connections}, or (unset) what the open-file limit holds; says so
     * at start when the limit lowers it or cannot hold a configured value.
     */
    private static ConnectionLimiter connectionLimiter(int configured, Bans bans) {
        OpenFileLimit openFiles = OpenFileLimit.ofThisProcess();
        if (openFiles.warning(configured) != null) {
            LOG.log(System.Logger.Level.WARNING, openFiles.warning(configured));
        } else if (openFiles.lowered(configured) != null) {
            LOG.log(System.Logger.Level.INFO, openFiles.lowered(configured));
        }
        return new ConnectionLimiter(openFiles.connections(configured), bans);
    }

    /**
     * The fleet for the admin API, or a supplier of null without {@code storage:}: then no class of the fleet loads
     * (a lambda typed to return a Fleet loads that class when it is made; an erased one does not).
     */
    Supplier<dev.usher.fleet.Fleet> fleetForAdmin() {
        return fleet == null ? nothing() : fleet::fleet;
    }

    private static <T> Supplier<T> nothing() {
        return () -> null;
    }

    /** True when {@code config} asks for HTTP/3 and this platform can serve it (loads the native library now). */
    boolean servesHttp3(UsherConfig config) {
        return config.listen().http3On() && quicNative.get().serves(config.listen());
    }

    /** Releases everything, after the last generation was closed; the event loops end last but one. */
    void close() {
        crowdsec.close();
        if (fleet != null) {
            fleet.close();
        }
        services.close();
        pools.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (accessLogs != null) {
            accessLogs.close();
        }
    }
}
