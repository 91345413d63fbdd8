package dev.usher.upstream;

import dev.usher.config.Balancing;
import dev.usher.net.Transport;
import io.netty.channel.EventLoopGroup;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The backends of one site and how the next request picks one. Shared by every event loop (thread-safe, lock-free
 * on the request path).
 *
 * <p><b>Policy</b>: {@link Balancing.Policy} chooses among the backends that are up and not yet tried for the
 * request (one small {@link LoadBalancer} class each).
 *
 * <p><b>Passive health</b>: {@link #failed} counts failures in a row, {@link #succeeded} resets the count. At
 * {@code maxFails} (0 turns this off) a backend is down for {@code failTimeout}; after that it takes requests again,
 * and one more failure takes it down again.
 *
 * <p><b>Active health</b> (when {@link Balancing#health()} is set and {@link #startHealthChecks} was called): a
 * backend whose last check failed is down until a check passes, whatever passive health says. The two are
 * independent: a passing check does not end a passive down window.
 *
 * <p><b>When every backend is down</b>: if some of them are down only by passive health, {@link #pick} returns the
 * one whose down window ends soonest (not among {@code tried}). Passive health is a guess from past failures, and a
 * guess is better than a certain 503 when there is nowhere else to go; each failed attempt pushes that backend's
 * window out, so the next request tries the next backend, and a recovered one is found within a few requests rather
 * than after {@code failTimeout}. A single-backend site is thus always tried, as in nginx. Backends down by an active
 * health check are not used this way (a check just saw them fail), so if all are, pick returns null (503).
 */
public final class UpstreamGroup implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UpstreamGroup.class.getName());

    /** For log lines only; volatile because it may be set after construction, before the group is shared. */
    private final String site;
    private final List<UpstreamPool> pools;
    private final Balancing balancing;
    private final LongSupplier nanoTime;
    /** One per distinct pool, in config order. */
    private final Backend[] distinct;
    private final Map<UpstreamPool, Backend> byPool;
    private final Backends backends;
    private final LoadBalancer balancer;
    private final int maxFails;
    private final long failTimeoutNanos;
    /** Guarded by {@code this}; start and close are rare, so a monitor is simplest. */
    private HealthChecker checker;
    private boolean closed;
    /** Route tables using this group: a reload that keeps a site's backends shares it with the next table. */
    private int owners = 1;
    /** Requests holding on while every backend is down ({@code wait_for_backend:}); bounded per site. */
    private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();

    /** A group without a site name (logs say just {@code backend host:port}). */
    public UpstreamGroup(List<UpstreamPool> pools, Balancing balancing) {
        this(null, pools, balancing, System::nanoTime);
    }

    /**
     * A group for {@code site}, whose name starts its log lines.
     *
     * @param site      the site name, for logs (may be null)
     * @param pools     the backends in config order; at least one
     * @param balancing policy and health settings (null for {@link Balancing#DEFAULTS})
     */
    public UpstreamGroup(String site, List<UpstreamPool> pools, Balancing balancing) {
        this(site, pools, balancing, System::nanoTime);
    }

    /** With an injectable clock, for tests of passive health. */
    UpstreamGroup(String site, List<UpstreamPool> pools, Balancing balancing, LongSupplier nanoTime) {
        if (pools.isEmpty()) {
            throw new IllegalArgumentException("a site needs at least one backend");
        }
        this.site = site;
        this.pools = List.copyOf(pools);
        this.balancing = balancing != null ? balancing : Balancing.DEFAULTS;
        this.nanoTime = nanoTime;
        Map<UpstreamPool, Backend> map = new IdentityHashMap<>();
        List<Backend> unique = new ArrayList<>();
        Backend[] slots = new Backend[this.pools.size()];
        for (int i = 0; i < slots.length; i++) {
            UpstreamPool pool = this.pools.get(i);
            slots[i] = map.computeIfAbsent(pool, p -> {
                Backend b = new Backend(p, unique.size());
                unique.add(b);
                return b;
            });
        }
        this.distinct = unique.toArray(Backend[]::new);
        this.byPool = map;
        this.backends = new Backends(slots, nanoTime);
        this.balancer = LoadBalancer.of(this.balancing.policy());
        this.maxFails = this.balancing.maxFails();
        Duration timeout = this.balancing.failTimeout();
        this.failTimeoutNanos = timeout == null ? 0 : saturatedNanos(timeout);
    }

    /**
     * The backend for the next request from {@code client}, skipping those in {@code tried} (already failed for
     * this request) and those currently marked down; null when no backend is available. When every untried backend
     * is down, see the class comment for which one is still tried.
     */
    public UpstreamPool pick(InetAddress client, Collection<UpstreamPool> tried) {
        Backend b = balancer.pick(backends, client, tried);
        if (b == null) {
            b = soonestBack(tried);
        }
        return b == null ? null : b.pool;
    }

    /**
     * Among untried backends down only by passive health, the one whose down window ends first. One that is up
     * again wins at once: another request may have marked it up after the balancer found none (a race that would
     * otherwise answer 503 with a healthy backend).
     */
    private Backend soonestBack(Collection<UpstreamPool> tried) {
        Backend best = null;
        for (Backend b : distinct) {
            if (b.checkDown() || tried.contains(b.pool)) {
                continue;
            }
            if (!b.passiveDown()) {
                return b;
            }
            if (best == null || b.downUntilNanos() - best.downUntilNanos() < 0) {
                best = b;
            }
        }
        return best;
    }

    /** A request was sent to {@code pool} (for least-connections). */
    public void requestStarted(UpstreamPool pool) {
        Backend b = byPool.get(pool);
        if (b != null) {
            b.started();
        }
    }

    /** A request to {@code pool} ended, whatever its outcome. */
    public void requestEnded(UpstreamPool pool) {
        Backend b = byPool.get(pool);
        if (b != null) {
            b.ended();
        }
    }

    /** {@code pool} answered (any HTTP status: a backend that answers is up). */
    public void succeeded(UpstreamPool pool) {
        Backend b = byPool.get(pool);
        if (b != null && b.succeeded(maxFails)) {
            LOG.log(Level.INFO, () -> label(b) + " is up again");
        }
    }

    /** Connecting to {@code pool} failed, or it closed or timed out before answering. */
    public void failed(UpstreamPool pool) {
        Backend b = byPool.get(pool);
        if (b != null && b.failed(maxFails, nanoTime.getAsLong(), failTimeoutNanos)) {
            LOG.log(Level.INFO, () -> label(b) + " is down (" + failuresInARow(maxFails) + "; tried again after "
                    + HealthChecker.format(balancing.failTimeout()) + ")");
        }
    }

    /**
     * Takes one of at most {@code max} places for a request that waits for a backend to come back; false when they
     * are all taken (the request then gets its error at once). Each place taken is given back with
     * {@link #stopWaiting()}.
     */
    public boolean startWaiting(int max) {
        while (true) {
            int now = waiting.get();
            if (now >= max) {
                return false;
            }
            if (waiting.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    /** Gives back a place taken by {@link #startWaiting}. */
    public void stopWaiting() {
        waiting.decrementAndGet();
    }

    /** How many requests wait for a backend now (for metrics and tests). */
    public int waitingRequests() {
        return waiting.get();
    }

    /** Every backend of the site, in config order. */
    public List<UpstreamPool> pools() {
        return pools;
    }

    /** The balancing settings. */
    public Balancing balancing() {
        return balancing;
    }

    /** The site name that starts this group's log lines, or null. */
    public String siteName() {
        return site;
    }

    /**
     * Starts active health checks on one event loop of {@code loops}, when the balancing settings ask for them
     * (otherwise does nothing). The first round runs at once, and a backend counts as up until a check fails;
     * {@link #close()} stops them. Idempotent; does nothing after close.
     *
     * @param transport the socket transport of {@code loops}
     */
    public synchronized void startHealthChecks(EventLoopGroup loops, Transport transport) {
        if (closed || checker != null || balancing.health() == null) {
            return;
        }
        checker = new HealthChecker(this, distinct, balancing.health(), loops.next(), transport);
        checker.start();
    }

    /** Each distinct backend's state, in config order. A snapshot: each field is read once, not all atomically. */
    public List<BackendStatus> status() {
        List<BackendStatus> out = new ArrayList<>(distinct.length);
        for (Backend b : distinct) {
            boolean up = b.available(nanoTime);
            int failures = b.failures();
            String reason = null;
            if (b.checkDown()) {
                reason = "health check: " + b.checkReason();
            } else if (!up) {
                reason = failuresInARow(failures);
            }
            out.add(new BackendStatus(b.pool.address(), up, b.inFlight(), failures, reason));
        }
        return List.copyOf(out);
    }

    /**
     * True when this group serves exactly these backends with this balancing, so a reloaded config can keep it (and
     * what it knows: backends found down, failures in a row, requests in flight).
     */
    public boolean sameSetup(List<UpstreamPool> otherPools, Balancing otherBalancing) {
        return pools.equals(otherPools)
                && balancing.equals(otherBalancing != null ? otherBalancing : Balancing.DEFAULTS);
    }

    /**
     * Registers one more route table using this group; each one calls {@link #close()} once. False when the group
     * is already closed (it cannot be shared any more).
     */
    public synchronized boolean retain() {
        if (closed) {
            return false;
        }
        owners++;
        return true;
    }

    /**
     * Stops active health checks, if any, once no route table uses the group any more. The pools stay open: they
     * are shared across config generations.
     */
    @Override
    public void close() {
        HealthChecker c;
        synchronized (this) {
            if (closed || --owners > 0) {
                return;
            }
            closed = true;
            c = checker;
            checker = null;
        }
        if (c != null) {
            c.stop();
        }
    }

    /** {@code site backend host:port}, the start of every log line about a backend. */
    String label(Backend b) {
        String s = site;
        return (s == null ? "" : s + " ") + "backend " + b;
    }

    private static String failuresInARow(int n) {
        return n == 1 ? "1 failure" : n + " failures in a row";
    }

    private static long saturatedNanos(Duration d) {
        try {
            return Math.max(0, d.toNanos());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }
}
