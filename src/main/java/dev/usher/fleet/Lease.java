package dev.usher.fleet;

import dev.usher.cert.CertStorage;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.params.SetParams;

/**
 * The fleet-wide lock on ordering one name: {@code SET lock token NX PX lease}, renewed every third of the lease
 * while the order runs, released by a compare-and-delete (so a holder whose lease ran out never deletes its
 * successor's). A node that dies holding it (SIGKILL, power) stops renewing, and the lease frees the name for
 * another node. Each lease carries a fencing token from a counter ({@code INCR}): a certificate is stored with it,
 * and a store with a smaller token than the one stored is refused, so a holder that lost its lease while paused
 * cannot overwrite what its successor stored.
 */
final class Lease implements CertStorage.OrderLock {
    private static final System.Logger LOG = System.getLogger(Lease.class.getName());
    static final String RENEW = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return redis.call('PEXPIRE', KEYS[1], ARGV[2])
            end
            return 0""";
    static final String RELEASE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then
              return redis.call('DEL', KEYS[1])
            end
            return 0""";

    private final RedisLink redis;
    private final String key;
    private final String token;
    private final long fence;
    private final Runnable forget;
    private final ScheduledFuture<?> renewal;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Lease(RedisLink redis, String key, String token, long fence, Duration lease,
                  ScheduledExecutorService timer, Runnable forget) {
        this.redis = redis;
        this.key = key;
        this.token = token;
        this.fence = fence;
        this.forget = forget;
        long every = Math.max(1, lease.toMillis() / 3);
        this.renewal = timer.scheduleAtFixedRate(() -> renew(lease), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes the lock {@code key} for {@code lease} if no one holds it; empty when someone does. {@code forget} runs
     * when it is let go.
     */
    static Optional<Lease> tryTake(RedisLink redis, String key, String node, Duration lease, String fenceKey,
                                   ScheduledExecutorService timer, Runnable forget) throws IOException {
        long fence = redis.call(j -> j.incr(fenceKey));
        String token = node + "/" + fence + "/" + UUID.randomUUID();
        String ok = redis.call(j -> j.set(key, token, SetParams.setParams().nx().px(lease.toMillis())));
        if (!"OK".equals(ok)) {
            return Optional.empty();
        }
        return Optional.of(new Lease(redis, key, token, fence, lease, timer, forget));
    }

    /** The fencing token: larger than that of every lease taken before on any name. */
    long fence() {
        return fence;
    }

    private void renew(Duration lease) {
        try {
            Object renewed = redis.call(j -> j.eval(RENEW, List.of(key), List.of(token,
                    Long.toString(lease.toMillis()))));
            if (!Long.valueOf(1).equals(renewed)) {
                LOG.log(Level.WARNING, "the lock {0} was lost (its lease ran out); the order goes on, and what it "
                        + "stores is refused if another node stored a newer one meanwhile", key);
                renewal.cancel(false);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "could not renew {0}: {1}", key, e.toString());
        }
    }

    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        renewal.cancel(false);
        forget.run();
        try {
            redis.call(j -> j.eval(RELEASE, List.of(key), List.of(token)));
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "could not release {0} (its lease frees it): {1}", key, e.toString());
        }
    }
}
