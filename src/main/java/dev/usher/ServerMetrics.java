package dev.usher;

import dev.usher.reload.ReloadCounts;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertificateStatus;
import dev.usher.config.UpstreamAddress;
import dev.usher.observe.AccessLog;
import dev.usher.observe.MetricsSource;
import dev.usher.observe.OpenConnections;
import dev.usher.observe.PrometheusText;
import dev.usher.route.Route;
import dev.usher.route.RouteTable;
import dev.usher.upstream.BackendStatus;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPool;
import dev.usher.upstream.UpstreamPools;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The metric families read from the running server at scrape time: sites by source (file or container labels),
 * open client connections per listener, backend
 * pools (idle and active connections, connect errors), backend health per site, certificate expiry, the access
 * log's written and dropped lines. Reads the route tables current at scrape time, so it follows reloads.
 *
 * <p>Called on the admin endpoint's event loop; reads snapshots only, never blocks.
 */
final class ServerMetrics implements MetricsSource {
    private final Usher usher;

    /** Reads {@code usher}'s parts at each scrape: a reload may replace the HTTPS listener and certificates. */
    ServerMetrics(Usher usher) {
        this.usher = usher;
    }

    @Override
    public void write(PrometheusText out) {
        Generation generation = usher.generation();
        Shared shared = usher.shared();
        OpenConnections http = shared.httpConnections();
        // Connections counts every listener's clients; the plain and HTTP/3 listeners' own counts are exact, the rest
        // are HTTPS over TCP.
        OpenConnections quic = shared.quicConnections();
        Integer https = generation.https() == null ? null
                : Math.max(0, shared.connections().size() - (int) http.count() - (int) quic.count());
        UpstreamPools pools = shared.pools();
        CertManager certificates = generation.certificates();
        AccessLog accessLog = generation.accessLog();
        ReloadCounts.Snapshot reloads = usher.reloads().snapshot();
        out.family("usher_reloads_total", "counter", "Configuration reloads, by result.")
                .sample("usher_reloads_total", reloads.successes(), "result", "success")
                .sample("usher_reloads_total", reloads.failures(), "result", "failure");
        int labelled = generation.config().labelSites().size();
        out.family("usher_sites", "gauge", "Sites served, by where they come from: the config file or container "
                        + "labels.")
                .sample("usher_sites", generation.config().sites().size() - labelled, "source", "file")
                .sample("usher_sites", labelled, "source", "labels");
        out.family("usher_open_connections", "gauge", "Client connections open now, by listener.")
                .sample("usher_open_connections", http.count(), "listener", "http");
        if (https != null) {
            out.sample("usher_open_connections", https, "listener", "https");
        }
        if (generation.quic() != null || quic.count() > 0) {
            out.sample("usher_open_connections", quic.count(), "listener", "http3");
        }
        Map<UpstreamAddress, UpstreamPool> all = new TreeMap<>(Comparator.comparing(UpstreamAddress::authority));
        all.putAll(pools.all());
        Map<UpstreamAddress, UpstreamPool.Stats> stats = new LinkedHashMap<>();
        all.forEach((address, pool) -> stats.put(address, pool.stats()));
        out.family("usher_upstream_connections", "gauge", "Connections to each backend, idle (kept for reuse) or "
                + "active (carrying a request or a websocket).");
        stats.forEach((address, s) -> out
                .sample("usher_upstream_connections", s.idle(), "backend", address.authority(), "state", "idle")
                .sample("usher_upstream_connections", s.active(), "backend", address.authority(), "state", "active"));
        out.family("usher_upstream_connect_errors_total", "counter", "Failed connection attempts to each backend.");
        stats.forEach((address, s) -> out.sample("usher_upstream_connect_errors_total", s.connectErrors(),
                "backend", address.authority()));
        out.family("usher_upstream_up", "gauge", "1 when a site's or relay's backend may take requests (health "
                + "checks and passive health), 0 when it is down.");
        Map<String, UpstreamGroup> groups = new TreeMap<>();
        for (RouteTable table : new RouteTable[] {generation.plain(), generation.secure()}) {
            for (Route route : table == null ? List.<Route>of() : table.routes()) {
                if (route.upstreams() != null) {
                    groups.putIfAbsent(route.site().name(), route.upstreams());
                }
            }
        }
        groups.forEach((site, group) -> {
            for (BackendStatus b : group.status()) {
                out.sample("usher_upstream_up", b.up() ? 1 : 0, "site", site, "backend", b.address().authority());
            }
        });
        // Relays: a stream's backends (per server name when it routes by SNI) and passthrough sites'.
        new TreeMap<>(generation.streams().groups()).forEach((relay, group) -> {
            for (BackendStatus b : group.status()) {
                out.sample("usher_upstream_up", b.up() ? 1 : 0, "relay", relay, "backend", b.address().authority());
            }
        });
        if (certificates != null) {
            out.family("usher_certificate_expiry_timestamp_seconds", "gauge",
                    "When each name's current certificate expires, in seconds since the epoch.");
            for (CertificateStatus c : certificates.status()) {
                if (c.notAfter() != null) {
                    out.sample("usher_certificate_expiry_timestamp_seconds", c.notAfter().getEpochSecond(),
                            "name", c.name());
                }
            }
        }
        if (accessLog != null) {
            out.family("usher_access_log_lines_total", "counter", "Access log lines written.")
                    .sample("usher_access_log_lines_total", accessLog.written());
            out.family("usher_access_log_dropped_total", "counter",
                    "Access log lines dropped because the writer could not keep up.")
                    .sample("usher_access_log_dropped_total", accessLog.dropped());
        }
    }
}
