package dev.usher.upstream;

import dev.usher.config.Balancing;
import dev.usher.net.Transport;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Active health checks of one {@link UpstreamGroup}: every interval, one probe per backend ({@link HealthProbe}, an
 * HTTP GET, or {@link TcpProbe}, a TCP connect, for relayed backends whose check has no path), and the verdict
 * recorded on the backend (logged when it changes).
 *
 * <p>Threading: everything but {@link #start} and {@link #stop} runs on its one event loop, so the bookkeeping needs
 * no locks. A backend whose previous probe is still running (timeout longer than interval) is not probed again until
 * that one ends, so a slow backend never collects a pile of probes.
 */
final class HealthChecker {
    private static final System.Logger LOG = System.getLogger(UpstreamGroup.class.getName());

    private final UpstreamGroup group;
    private final Backend[] backends;
    /** The path to GET, or null for TCP connect checks. */
    private final String path;
    private final long intervalMillis;
    private final Duration timeout;
    private final EventLoop loop;
    private final Transport transport;
    /** Probe running per backend index, or null. Event loop only. */
    private final Probe[] running;
    private ScheduledFuture<?> rounds;
    /** Set by {@link #stop} from any thread; probes finishing afterwards are ignored. */
    private volatile boolean stopped;

    HealthChecker(UpstreamGroup group, Backend[] backends, Balancing.HealthCheck check, EventLoop loop,
                  Transport transport) {
        this.group = group;
        this.backends = backends;
        this.path = check.path() == null ? null : check.path().isEmpty() ? "/" : check.path();
        this.intervalMillis = Math.max(1, check.interval().toMillis());
        this.timeout = check.timeout().isPositive() ? check.timeout() : Duration.ofMillis(1);
        this.loop = loop;
        this.transport = transport;
        this.running = new Probe[backends.length];
    }

    void start() {
        try {
            rounds = loop.scheduleAtFixedRate(this::round, 0, intervalMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The event loops are shutting down: there is nothing left to check for.
            stopped = true;
        }
    }

    void stop() {
        stopped = true;
        ScheduledFuture<?> r = rounds;
        if (r != null) {
            r.cancel(false);
        }
        try {
            loop.execute(() -> {
                for (int i = 0; i < running.length; i++) {
                    if (running[i] != null) {
                        running[i].cancel();
                        running[i] = null;
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            // The loop is gone, and its channels with it.
        }
    }

    private void round() {
        if (stopped) {
            return;
        }
        for (Backend b : backends) {
            if (running[b.index] == null) {
                Probe probe = path == null
                        ? new TcpProbe(b.pool, timeout, loop, transport, failure -> finished(b, failure))
                        : new HealthProbe(b.pool, path, timeout, loop, transport, failure -> finished(b, failure));
                running[b.index] = probe;
                probe.start();
            }
        }
    }

    /** A probe's verdict: {@code failure} is null for healthy. Called once per probe, on the event loop. */
    private void finished(Backend b, String failure) {
        running[b.index] = null;
        if (stopped) {
            return;
        }
        if (b.checked(failure)) {
            if (failure != null) {
                LOG.log(Level.INFO, () -> group.label(b) + " is down (health check: " + failure + ")");
            } else {
                LOG.log(Level.INFO, () -> group.label(b) + " is up again");
            }
        }
    }

    /** {@code 250ms}, {@code 2s}, {@code 1.5s}: short and exact enough for a log line. */
    static String format(Duration d) {
        if (d == null) {
            return "0s";
        }
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms / 1000.0 + "s";
    }
}
