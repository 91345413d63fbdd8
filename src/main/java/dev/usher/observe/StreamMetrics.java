package dev.usher.observe;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The metrics of relayed connections, per stream (or passthrough site): connections by how they ended, open now,
 * bytes each way, dropped datagrams. A small block of {@link LongAdder}s per name, found in a concurrent map; like
 * the per-site counters, a removed stream keeps its block (counters do not go back). Thread-safe.
 */
public final class StreamMetrics implements StreamObserver, MetricsSource {
    private static final StreamEnding[] ENDINGS = StreamEnding.values();

    private final Map<String, Counters> streams = new ConcurrentHashMap<>();

    @Override
    public void streamStarted(String stream) {
        counters(stream).started.increment();
    }

    @Override
    public void streamEnded(StreamRecord r) {
        Counters c = counters(r.stream());
        c.kind = r.kind();
        c.ended[r.ending().ordinal()].increment();
        if (r.bytesIn() > 0) {
            c.bytesIn.add(r.bytesIn());
        }
        if (r.bytesOut() > 0) {
            c.bytesOut.add(r.bytesOut());
        }
    }

    @Override
    public void datagramDropped(String stream) {
        counters(stream).dropped.increment();
    }

    private Counters counters(String stream) {
        Counters c = streams.get(stream);
        return c != null ? c : streams.computeIfAbsent(stream, s -> new Counters());
    }

    @Override
    public void write(PrometheusText out) {
        Map<String, Counters> snapshot = new TreeMap<>(streams);
        out.family("usher_stream_connections_total", "counter", "Relayed connections (UDP: sessions) by stream or "
                + "passthrough site, kind and how they ended.");
        snapshot.forEach((name, c) -> {
            for (StreamEnding e : ENDINGS) {
                long n = c.ended[e.ordinal()].sum();
                if (n > 0) {
                    out.sample("usher_stream_connections_total", n, "stream", name, "kind", c.kind, "ending",
                            e.label());
                }
            }
        });
        out.family("usher_stream_open", "gauge", "Relayed connections (UDP: sessions) open now.");
        snapshot.forEach((name, c) -> {
            long ended = 0;
            for (LongAdder a : c.ended) {
                ended += a.sum();
            }
            out.sample("usher_stream_open", Math.max(0, c.started.sum() - ended), "stream", name);
        });
        out.family("usher_stream_bytes_total", "counter", "Bytes relayed, from the client (in) and to it (out).");
        snapshot.forEach((name, c) -> {
            out.sample("usher_stream_bytes_total", c.bytesIn.sum(), "stream", name, "direction", "in");
            out.sample("usher_stream_bytes_total", c.bytesOut.sum(), "stream", name, "direction", "out");
        });
        out.family("usher_stream_datagrams_dropped_total", "counter", "UDP datagrams dropped because no session "
                + "could be made for them (denied, or the session table full).");
        snapshot.forEach((name, c) -> {
            long n = c.dropped.sum();
            if (n > 0) {
                out.sample("usher_stream_datagrams_dropped_total", n, "stream", name);
            }
        });
    }

    /** One stream's counters. */
    private static final class Counters {
        final LongAdder started = new LongAdder();
        final LongAdder[] ended = new LongAdder[ENDINGS.length];
        final LongAdder bytesIn = new LongAdder();
        final LongAdder bytesOut = new LongAdder();
        final LongAdder dropped = new LongAdder();
        /** The kind of the last connection that ended (a stream has one kind; a reload may change it). */
        volatile String kind = "tcp";

        Counters() {
            for (int i = 0; i < ended.length; i++) {
                ended[i] = new LongAdder();
            }
        }
    }
}
