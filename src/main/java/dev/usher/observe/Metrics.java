package dev.usher.observe;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Usher's metrics, served as Prometheus text by the admin endpoint ({@code GET /metrics}).
 *
 * <p>Per request (as a {@link RequestObserver}): a count by site, status class and protocol, a duration histogram per
 * site, body bytes in and out per site. Each site has a small fixed block of {@link LongAdder}s, found by name in a
 * concurrent map (a lock-free read; the block is made once per site name). A request costs a map lookup and five
 * adder increments, with no allocation. Sites removed by a reload keep their counters (counters must not go back),
 * so the memory is bounded by the site names ever configured.
 *
 * <p>The histogram is per site, not global: the first question on a slow day is which app is slow, and with tens
 * of sites the series count stays small (13 buckets a site); a global one is {@code sum by (le)}.
 *
 * <p>At scrape time the {@link MetricsSource}s add what other parts know (connections, backends, certificates).
 * Thread-safe.
 */
public final class Metrics implements RequestObserver {
    /** Histogram bucket bounds in seconds (Prometheus' usual ones, plus 1 ms). */
    static final double[] BUCKETS = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    private static final long[] BUCKET_NANOS = new long[BUCKETS.length];
    /** Status classes by {@code status / 100}; 0: no response was sent. */
    private static final String[] CLASSES = {"none", "1xx", "2xx", "3xx", "4xx", "5xx"};
    private static final Protocol[] PROTOCOLS = Protocol.values();
    /** The site label of requests that matched no site. */
    static final String NO_SITE = "";

    static {
        for (int i = 0; i < BUCKETS.length; i++) {
            BUCKET_NANOS[i] = Math.round(BUCKETS[i] * 1e9);
        }
    }

    private final Map<String, SiteCounters> sites = new ConcurrentHashMap<>();
    private final List<MetricsSource> sources = new ArrayList<>();
    private final JvmMetrics jvm = new JvmMetrics();

    /** Metrics with no outside source yet. */
    public Metrics() {
    }

    /** Adds families read from elsewhere at each scrape. Call before serving. */
    public synchronized Metrics with(MetricsSource source) {
        sources.add(source);
        return this;
    }

    @Override
    public void requestEnded(RequestRecord r) {
        String site = r.siteName();
        SiteCounters c = sites.get(site == null ? NO_SITE : site);
        if (c == null) {
            c = sites.computeIfAbsent(site == null ? NO_SITE : site, s -> new SiteCounters());
        }
        int status = r.status();
        int statusClass = status >= 100 && status < 600 ? status / 100 : 0;
        c.requests[r.protocol().ordinal() * CLASSES.length + statusClass].increment();
        long nanos = r.durationNanos();
        int bucket = 0;
        while (bucket < BUCKET_NANOS.length && nanos > BUCKET_NANOS[bucket]) {
            bucket++;
        }
        c.buckets[bucket].increment();
        c.durationNanos.add(nanos);
        if (r.bytesIn() > 0) {
            c.bytesIn.add(r.bytesIn());
        }
        if (r.bytesOut() > 0) {
            c.bytesOut.add(r.bytesOut());
        }
    }

    /** Requests so far per site name (all protocols and statuses), for the admin API's recent-request counts. */
    public Map<String, Long> requestTotals() {
        Map<String, Long> totals = new java.util.HashMap<>();
        sites.forEach((site, c) -> {
            long n = 0;
            for (LongAdder a : c.requests) {
                n += a.sum();
            }
            totals.put(site, n);
        });
        return totals;
    }

    /** The whole exposition, in Prometheus text format. */
    public String scrape() {
        PrometheusText out = new PrometheusText();
        Map<String, SiteCounters> snapshot = new TreeMap<>(sites);
        out.family("usher_requests_total", "counter", "Requests by site, protocol and status class "
                + "(status_class none: the connection or stream ended before a response).");
        snapshot.forEach((site, c) -> {
            for (Protocol p : PROTOCOLS) {
                for (int k = 0; k < CLASSES.length; k++) {
                    long n = c.requests[p.ordinal() * CLASSES.length + k].sum();
                    if (n > 0) {
                        out.sample("usher_requests_total", n, "site", site, "protocol", p.label(),
                                "status_class", CLASSES[k]);
                    }
                }
            }
        });
        out.family("usher_request_duration_seconds", "histogram",
                "Time from a request's head to the last byte of its response, by site.");
        snapshot.forEach((site, c) -> {
            long cumulative = 0;
            for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += c.buckets[i].sum();
                out.sample("usher_request_duration_seconds_bucket", cumulative, "site", site,
                        "le", Double.toString(BUCKETS[i]));
            }
            cumulative += c.buckets[BUCKETS.length].sum();
            out.sample("usher_request_duration_seconds_bucket", cumulative, "site", site, "le", "+Inf");
            out.sample("usher_request_duration_seconds_sum", c.durationNanos.sum() / 1e9, "site", site);
            out.sample("usher_request_duration_seconds_count", cumulative, "site", site);
        });
        out.family("usher_request_body_bytes_total", "counter", "Request body bytes received, by site.");
        snapshot.forEach((site, c) -> out.sample("usher_request_body_bytes_total", c.bytesIn.sum(), "site", site));
        out.family("usher_response_body_bytes_total", "counter",
                "Response body bytes sent (after compression), by site.");
        snapshot.forEach((site, c) -> out.sample("usher_response_body_bytes_total", c.bytesOut.sum(), "site", site));
        List<MetricsSource> more;
        synchronized (this) {
            more = List.copyOf(sources);
        }
        for (MetricsSource source : more) {
            source.write(out);
        }
        jvm.write(out);
        return out.toString();
    }

    /** One site's counters. The histogram's buckets are kept apart here and made cumulative at scrape time. */
    private static final class SiteCounters {
        final LongAdder[] requests = adders(PROTOCOLS.length * CLASSES.length);
        final LongAdder[] buckets = adders(BUCKETS.length + 1);
        final LongAdder durationNanos = new LongAdder();
        final LongAdder bytesIn = new LongAdder();
        final LongAdder bytesOut = new LongAdder();

        private static LongAdder[] adders(int n) {
            LongAdder[] a = new LongAdder[n];
            for (int i = 0; i < n; i++) {
                a[i] = new LongAdder();
            }
            return a;
        }
    }
}
