package dev.usher;

import dev.usher.admin.AdminListener;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertStore;
import dev.usher.config.ConfigError;
import dev.usher.config.ListenAddress;
import dev.usher.config.UpstreamAddress;
import dev.usher.config.UsherConfig;
import dev.usher.observe.AccessLog;
import dev.usher.protocol.Http1Initializer;
import dev.usher.protocol.HttpsInitializer;
import dev.usher.reload.Changes;
import dev.usher.reload.ReloadResult;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.server.HttpListener;
import dev.usher.server.ListenException;
import dev.usher.server.QuicListener;
import dev.usher.tls.TlsContexts;
import dev.usher.tls.TlsInitializer;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One reload of a running {@link Usher}, in two phases. <b>Prepare</b> does everything that can fail and nothing
 * the running config notices: compile the new route tables (with the same backend pools and rule state), bind
 * listeners whose address changed. A failure there closes what was prepared and leaves the old config serving
 * entirely. <b>Commit</b> cannot fail for a reason of the config: certificates for the new sites first, health
 * checks of the new tables, the swap (HTTPS table first, so that a redirect the new plain table gives lands on a
 * table that knows the site), the new listeners in place of the old (whose open connections stay), then what the
 * old tables ran (their health checks) is stopped.
 *
 * <p>Runs under the Usher's lock, on the thread that asked (never an event loop: binding waits).
 */
final class Reconfiguration {
    private static final System.Logger LOG = System.getLogger(Reconfiguration.class.getName());

    private final Usher usher;
    private final UsherConfig old;
    private final UsherConfig next;
    /** Whether the new config serves HTTPS at all (a listener and at least one HTTPS site). */
    private final boolean httpsNext;
    private Changes changes;
    /** Prepared, not yet in service. */
    private RouteTable secureTable;
    private RouteTable plainTable;
    private RouteTableHolder secureRoutes;
    private CertManager certificates;
    private boolean certificatesMade;
    private HttpListener http;
    private HttpListener https;
    /** A new HTTP/3 listener (HTTP/3 turned on, or the HTTPS address changed). */
    private QuicListener quic;
    private AdminListener admin;
    /** The access log that replaces the one in service (null: none), when {@code replaceAccessLog}. */
    private AccessLog accessLog;
    private boolean replaceAccessLog;
    /** The config setting whose preparation is under way, named in the error if it fails. */
    private String preparing = "";

    Reconfiguration(Usher usher, UsherConfig next) {
        this.usher = usher;
        this.old = usher.routes.get().config();
        this.next = next;
        this.httpsNext = next.listen().httpsOn() && next.anyHttps();
    }

    ReloadResult run() {
        long started = System.nanoTime();
        changes = Changes.between(old, next);
        try {
            prepare();
        } catch (ListenException | RuntimeException e) {
            abandon();
            String message = e instanceof ListenException ? e.getMessage() : "cannot compile the new config: " + e;
            if (!(e instanceof ListenException)) {
                LOG.log(Level.ERROR, "reload: compiling the new config failed", e);
            }
            return ReloadResult.failed(List.of(new ConfigError(next.source(), 0, 0, preparing, message)),
                    Duration.ofNanos(System.nanoTime() - started));
        }
        commit();
        return ReloadResult.succeeded(changes, Duration.ofNanos(System.nanoTime() - started));
    }

    private void prepare() throws ListenException {
        // Metrics and the access log are set up once, at start (so that a server without them pays nothing).
        if (next.admin() != null && usher.metrics() == null) {
            LOG.log(Level.WARNING, "reload: the admin endpoint starts now, but /metrics only from the next start");
        }
        AccessLog inService = usher.accessLog();
        if (!next.accessLog().equals(old.accessLog()) || next.anyAccessLog() != (inService != null)) {
            if (usher.accessLogs == null) {
                LOG.log(Level.WARNING, "reload: access logging starts at the next start (with the admin endpoint and "
                        + "the access log both off at start, requests are not observed at all)");
            } else {
                preparing = "access_log";
                accessLog = next.anyAccessLog() ? Usher.openAccessLog(next) : null;
                replaceAccessLog = true;
                preparing = "";
            }
        }
        certificates = usher.certificates;
        secureRoutes = usher.secureRoutes;
        if (httpsNext || secureRoutes != null) {
            // Also when HTTPS is switched off: connections still open on the old listener then see the new sites.
            secureTable = RouteTable.compileSecure(next, usher.pools, usher.services,
                    secureRoutes == null ? null : secureRoutes.get());
        }
        if (httpsNext) {
            if (certificates == null) {
                certificates = new CertManager(new CertStore(next.dataDir()), usher.answers, usher.retry,
                        usher.filePoll);
                certificatesMade = true;
            } else if (!next.dataDir().equals(old.dataDir())) {
                LOG.log(Level.WARNING, "reload: data: {0} takes effect at the next start; certificates stay in {1}",
                        next.dataDir(), old.dataDir());
            }
            if (usher.https == null || !next.listen().https().equals(old.listen().https())) {
                if (secureRoutes == null) {
                    secureRoutes = new RouteTableHolder(secureTable);
                }
                preparing = "listen.https";
                https = HttpListener.bind(next.listen().https(), usher.transport, usher.loops,
                        usher.connections.track(new HttpsInitializer(usher.limiter, new TlsInitializer(certificates,
                                usher.answers, new TlsContexts(TlsContexts.HTTP_PROTOCOLS),
                                Usher.protocolsFor(secureRoutes, usher.compression, usher.observer,
                                        usher.altSvc)))));
                changes = changes.withListener("https " + Usher.hostPort(https.address()));
            }
            if (usher.servesHttp3(next.listen()) && (usher.quic == null || https != null)) {
                // HTTP/3 follows the HTTPS listener: same host, same actual port, over UDP.
                preparing = "http3";
                HttpListener tcp = https != null ? https : usher.https;
                quic = usher.bindQuic(next, tcp.address(), certificates, secureRoutes);
                changes = changes.withListener("http3 UDP " + Usher.hostPort(quic.address()));
            }
        }
        preparing = "";
        HttpListener httpsNow = https != null ? https : httpsNext ? usher.https : null;
        plainTable = httpsNow != null
                ? RouteTable.compilePlain(next, usher.pools, usher.services, httpsNow.address().getPort(),
                usher.answers::http01, usher.routes.get())
                : RouteTable.compile(next, usher.pools, usher.services, usher.routes.get());
        if (!next.listen().http().equals(old.listen().http())) {
            preparing = "listen.http";
            http = HttpListener.bind(next.listen().http(), usher.transport, usher.loops,
                    usher.connections.track(new Http1Initializer(usher.routes, usher.limiter, usher.compression,
                            usher.observer, usher.httpConnections)));
            changes = changes.withListener("http " + Usher.hostPort(http.address()));
        }
        ListenAddress adminNext = next.admin();
        if (adminNext != null && (usher.admin == null || !adminNext.equals(old.admin()))) {
            preparing = "admin";
            admin = usher.bindAdmin(adminNext);
            changes = changes.withListener("admin " + Usher.hostPort(admin.address()));
        }
        preparing = "";
    }

    /** Undoes a prepare that failed: nothing of it was in service. */
    private void abandon() {
        for (AutoCloseable listener : new AutoCloseable[] {http, https, quic, admin}) {
            if (listener != null) {
                try {
                    listener.close();
                } catch (Exception e) {
                    LOG.log(Level.DEBUG, "closing a listener of an abandoned reload: " + e);
                }
            }
        }
        if (accessLog != null) {
            accessLog.close();
        }
        if (certificatesMade) {
            certificates.close();
        }
        // The tables' health checks never started; closing them is only for form. Pools made for new backends
        // stay in the shared set, unused (they hold no connection until asked for one).
        if (secureTable != null) {
            secureTable.close();
        }
        if (plainTable != null) {
            plainTable.close();
        }
    }

    private void commit() {
        if (certificates != null) {
            // Local certificates are made now and stored ones loaded; ACME orders run in the background. Names
            // no longer served are retired.
            certificates.apply(next);
        }
        usher.certificates = certificates;
        usher.secureRoutes = secureRoutes;
        RouteTable oldSecure = null;
        if (secureTable != null) {
            secureTable.startHealthChecks(usher.loops, usher.transport);
            // A new holder already holds the new table; an existing one is swapped.
            RouteTable previous = secureRoutes.swap(secureTable);
            oldSecure = previous == secureTable ? null : previous;
        }
        plainTable.startHealthChecks(usher.loops, usher.transport);
        RouteTable oldPlain = usher.routes.swap(plainTable);
        replaceListeners();
        usher.limiter.setMax(next.limits().connections());
        if (replaceAccessLog) {
            usher.accessLogs.replace(accessLog); // the old one writes what it had queued, then closes
        }
        oldPlain.close();
        if (oldSecure != null) {
            oldSecure.close();
        }
        Set<UpstreamAddress> inUse = new HashSet<>();
        next.sites().forEach(site -> inUse.addAll(site.upstreams()));
        int closed = usher.pools.retainOnly(inUse);
        if (closed > 0) {
            LOG.log(Level.DEBUG, "reload: closed the connection pools of {0} removed backend(s)", closed);
        }
    }

    /**
     * The HTTP/3 listener follows: a new one replaces the old (whose QUIC connections end with its socket: unlike
     * TCP, a UDP socket carries its connections; clients go on over TCP or reconnect), none when HTTP/3 is off now.
     * Alt-Svc advertises what is in service.
     */
    private void replaceQuic() {
        QuicListener previous = usher.quic;
        if (quic != null) {
            usher.quic = quic;
            usher.altSvc.advertise(quic.address().getPort());
        } else if (previous != null && !(httpsNext && usher.servesHttp3(next.listen()))) {
            usher.quic = null;
            usher.altSvc.withdraw();
            changes = changes.withListener("http3 closed");
        } else {
            return;
        }
        if (previous != null) {
            previous.close();
        }
    }

    /** New listeners in service, old ones stop accepting; connections they accepted are left alone. */
    private void replaceListeners() {
        if (https != null) {
            HttpListener previous = usher.https;
            usher.https = https;
            if (previous != null) {
                previous.close();
            }
        } else if (!httpsNext && usher.https != null) {
            usher.https.close();
            usher.https = null;
            changes = changes.withListener("https closed");
        }
        replaceQuic();
        if (http != null) {
            HttpListener previous = usher.http;
            usher.http = http;
            previous.close();
        }
        if (admin != null) {
            AdminListener previous = usher.admin;
            usher.admin = admin;
            if (previous != null) {
                previous.close();
            }
        } else if (next.admin() == null && usher.admin != null) {
            usher.admin.close();
            usher.admin = null;
            changes = changes.withListener("admin closed");
        }
        if (!Objects.equals(old.admin(), next.admin()) || http != null || https != null) {
            LOG.log(Level.INFO, "reload: now listening on http://{0}{1}{2}", Usher.hostPort(usher.http.address()),
                    usher.https == null ? "" : " and https://" + Usher.hostPort(usher.https.address()),
                    usher.admin == null ? "" : "; admin endpoint on http://" + Usher.hostPort(usher.admin.address()));
        }
    }
}
