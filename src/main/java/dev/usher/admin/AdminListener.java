package dev.usher.admin;

import dev.usher.observe.Metrics;
import dev.usher.cert.CertManager;
import dev.usher.config.ListenAddress;
import dev.usher.fleet.Fleet;
import dev.usher.reload.Reloader;
import dev.usher.server.HttpListener;
import dev.usher.server.ListenException;
import dev.usher.net.Transport;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;

import dev.usher.route.RouteTable;
import dev.usher.upstream.UpstreamGroup;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The admin endpoint ({@code admin:}, {@code 127.0.0.1:2019} by default): a small HTTP/1.1 API on a loopback
 * address for {@code usher renew}, {@code usher reload} and, later, metrics and the web UI.
 */
public final class AdminListener implements AutoCloseable {
    /** The web UI's files in the jar. */
    static final String UI = "dev/usher/admin/ui/";

    private final HttpListener listener;
    private final ScheduledFuture<?> sampling;

    private AdminListener(HttpListener listener, ScheduledFuture<?> sampling) {
        this.listener = listener;
        this.sampling = sampling;
    }

    /**
     * Binds {@code address}. Both suppliers are asked per request, since a reload may change what they give.
     *
     * @param certificates the certificate manager, or null when Usher serves no HTTPS
     * @param reloader     what {@code POST /reload} runs, or null when Usher was not started from a file
     * @param metrics      what {@code GET /metrics} serves, or null for none
     * @param secretHash   the bcrypt hash of the secret every request must carry, or null for none (asked per
     *                     request: a reload may change it)
     * @param tables       the running route tables, HTTPS first (site status for the web UI)
     * @param relays       the running streams' and passthrough sites' backend groups (stream status)
     * @param fleet        the fleet this node belongs to ({@code storage:}), or a supplier of null
     */
    public static AdminListener bind(ListenAddress address, Transport transport, EventLoopGroup loops,
                                     Supplier<CertManager> certificates, Supplier<Reloader> reloader,
                                     Metrics metrics, Supplier<String> secretHash,
                                     Supplier<List<RouteTable>> tables, Supplier<Map<String, UpstreamGroup>> relays,
                                     Supplier<Fleet> fleet)
            throws ListenException {
        return bind(address, transport, loops, certificates, reloader, metrics, secretHash, tables, relays, fleet, UI);
    }

    /** As the other {@code bind}, with the web UI's files from the class-path folder {@code uiRoot}. */
    static AdminListener bind(ListenAddress address, Transport transport, EventLoopGroup loops,
                              Supplier<CertManager> certificates, Supplier<Reloader> reloader, Metrics metrics,
                              Supplier<String> secretHash, Supplier<List<RouteTable>> tables,
                              Supplier<Map<String, UpstreamGroup>> relays, Supplier<Fleet> fleet, String uiRoot)
            throws ListenException {
        AdminSecret secret = new AdminSecret(secretHash, task -> Thread.ofVirtual().name("admin-secret").start(task));
        Sessions sessions = new Sessions(secretHash);
        RecentRequests recent = new RecentRequests(metrics);
        ConfigFile file = new ConfigFile(reloader, () -> tables.get().get(0).config().dataDir());
        AdminApi api = new AdminApi(sessions, secret, file, certificates, reloader, tables, relays, recent,
                fleet);
        StaticFiles ui = new StaticFiles(uiRoot);
        HttpListener listener = HttpListener.bind(address, transport, loops, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.config().setAutoRead(true);
                AdminRequestDeadline deadline = new AdminRequestDeadline(AdminRequestDeadline.BASE);
                ch.pipeline()
                        .addLast(new ReadTimeoutHandler(60))
                        .addLast(deadline)
                        .addLast(new HttpServerCodec())
                        .addLast(deadline.head())
                        .addLast(new AdminBodyLimit(secret, sessions))
                        .addLast(deadline.completion())
                        .addLast(new AdminHandler(certificates, reloader, metrics, secret, sessions, api, ui));
            }
        });
        ScheduledFuture<?> sampling = loops.next().scheduleAtFixedRate(recent::sample, RecentRequests.STEP_MILLIS,
                RecentRequests.STEP_MILLIS, TimeUnit.MILLISECONDS);
        return new AdminListener(listener, sampling);
    }

    /** Starts accepting connections (see {@link HttpListener#startAccepting}). */
    public void startAccepting() {
        listener.startAccepting();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return listener.address();
    }

    @Override
    public void close() {
        sampling.cancel(false);
        listener.close();
    }
}
