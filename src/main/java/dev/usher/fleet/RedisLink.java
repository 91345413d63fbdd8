package dev.usher.fleet;

import dev.usher.cert.StorageUnavailableException;
import dev.usher.config.StorageSetting;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisSentinelClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The connection to the fleet's Redis (an address, or the master a Sentinel names) and whether it is reachable.
 * While it is not, calls fail at once with {@link StorageUnavailableException} until the next attempt, which backs
 * off from half a second to 10 seconds; the outage is logged once, and its end once, and then the listeners given
 * to {@link #whenBack} run (a resync: what was saved meanwhile goes up, what changed comes down).
 *
 * <p>The Jedis client is made at the first call, not at start: with Sentinel that asks the Sentinels, which may be
 * down when Usher starts, and Usher then serves its local copy at once.
 */
final class RedisLink implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisLink.class.getName());
    private static final int TIMEOUT_MILLIS = 2000;
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    /**
     * How long after an outage orders wait: every other node's next attempt (its events subscription's, too) comes
     * within {@link #MAX_BACKOFF}, and until it has re-subscribed it would miss a challenge answer published now.
     */
    static final Duration SETTLE = MAX_BACKOFF.plusSeconds(2);

    /** Reachable as far as the last call knows. */
    enum State { UNKNOWN, UP, DOWN }

    private final StorageSetting setting;
    private final List<Runnable> back = new CopyOnWriteArrayList<>();
    private UnifiedJedis client;
    private State state = State.UNKNOWN;
    private int failures;
    private long nextAttemptNanos;
    /** When orders may go ahead again after the last outage (System.nanoTime; in the past when none ended lately). */
    private long settledAtNanos = System.nanoTime();
    private boolean closed;

    RedisLink(StorageSetting setting) {
        this.setting = setting;
    }

    /** Runs {@code listener} (on a thread of its own) each time Redis is reachable after it was not, or at first. */
    void whenBack(Runnable listener) {
        back.add(listener);
    }

    /** Where Redis is, for messages. */
    String where() {
        return setting.where();
    }

    synchronized State state() {
        return state;
    }

    /**
     * Runs {@code command} against Redis.
     *
     * @throws StorageUnavailableException when Redis cannot be reached (now, or at the last attempt and the backoff
     *                                     has not passed)
     * @throws IOException                 when Redis refused the command itself
     */
    <T> T call(Function<UnifiedJedis, T> command) throws IOException {
        UnifiedJedis jedis = client();
        try {
            T result;
            try {
                result = command.apply(jedis);
            } catch (JedisConnectionException stale) {
                // a pooled connection Redis closed (it restarted, or failed over): the pool dropped it; once more
                result = command.apply(jedis);
            }
            reachable();
            return result;
        } catch (JedisException e) {
            if (isOutage(e)) {
                throw unreachable(e);
            }
            throw new IOException(where() + " refused a command: " + e.getMessage(), e);
        }
    }

    /** Records that a call on a connection of its own (the event subscription) reached Redis. */
    void reachable() {
        boolean wasNotUp;
        synchronized (this) {
            wasNotUp = state != State.UP;
            if (wasNotUp && state == State.DOWN) {
                LOG.log(Level.INFO, "{0} is reachable again; orders and renewals resume in {1} s, once every "
                        + "node has reconnected", where(), SETTLE.toSeconds());
                settledAtNanos = System.nanoTime() + SETTLE.toNanos();
            }
            state = State.UP;
            failures = 0;
        }
        if (wasNotUp) {
            for (Runnable listener : back) {
                Thread.ofVirtual().name("usher-fleet-resync").start(listener);
            }
        }
    }

    /** Records an outage (logged once) and gives the exception to throw. */
    synchronized StorageUnavailableException unreachable(Exception e) {
        if (state != State.DOWN) {
            LOG.log(Level.WARNING, "{0} is unreachable ({1}); serving the local copies in the data directory, orders "
                    + "and renewals wait for it", where(), e.getMessage());
        }
        state = State.DOWN;
        failures++;
        nextAttemptNanos = System.nanoTime() + backoff(failures).toNanos();
        return new StorageUnavailableException(where() + " is unreachable: " + e.getMessage(), e);
    }

    /** The wait before the next attempt after {@code failures} failed ones. */
    static Duration backoff(int failures) {
        long millis = FIRST_BACKOFF.toMillis() << Math.min(Math.max(failures - 1, 0), 10);
        return Duration.ofMillis(Math.min(millis, MAX_BACKOFF.toMillis()));
    }

    /** How long until the next attempt is due (zero when it is). */
    synchronized Duration untilNextAttempt() {
        long left = nextAttemptNanos - System.nanoTime();
        return state == State.DOWN && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * How long until every node of the fleet has surely reconnected after the outage that ended last (zero when
     * none ended in the last {@link #SETTLE}).
     */
    synchronized Duration untilSettled() {
        long left = settledAtNanos - System.nanoTime();
        return state == State.UP && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /** The client, made on first use; fails at once while an outage's backoff runs. */
    synchronized UnifiedJedis client() throws StorageUnavailableException {
        if (closed) {
            throw new StorageUnavailableException("the connection to " + where() + " is closed", null);
        }
        if (state == State.DOWN && System.nanoTime() - nextAttemptNanos < 0) {
            throw new StorageUnavailableException(where() + " is unreachable (next attempt in "
                    + untilNextAttempt().toMillis() + " ms)", null);
        }
        if (client == null) {
            try {
                client = connect();
            } catch (JedisException e) {
                throw unreachable(e);
            }
        }
        return client;
    }

    private UnifiedJedis connect() {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(TIMEOUT_MILLIS).socketTimeoutMillis(TIMEOUT_MILLIS)
                .clientName("usher-" + setting.node()).ssl(setting.tls()).autoNegotiateProtocol(false);
        if (setting.password() != null) {
            config.password(setting.password().reveal());
        }
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(16);
        pool.setMaxIdle(4);
        pool.setMinIdle(0);
        pool.setJmxEnabled(false);
        pool.setMaxWait(Duration.ofMillis(TIMEOUT_MILLIS)); // a busy pool is an error to retry, never a hang
        if (setting.redis() != null) {
            URI uri = setting.redis();
            if (uri.getRawUserInfo() != null) {
                config.user(uri.getUserInfo());
            }
            config.database(database(uri));
            return RedisClient.builder().hostAndPort(uri.getHost(), uri.getPort() == -1 ? 6379 : uri.getPort())
                    .clientConfig(config.build()).poolConfig(pool).build();
        }
        Set<HostAndPort> sentinels = setting.sentinel().nodes().stream().map(HostAndPort::from)
                .collect(Collectors.toSet());
        return RedisSentinelClient.builder().masterName(setting.sentinel().master()).sentinels(sentinels)
                .clientConfig(config.build()).poolConfig(pool)
                .sentinelClientConfig(DefaultJedisClientConfig.builder().connectionTimeoutMillis(TIMEOUT_MILLIS)
                        .socketTimeoutMillis(TIMEOUT_MILLIS).ssl(setting.tls()).build())
                .build();
    }

    private static int database(URI uri) {
        String path = uri.getPath() == null ? "" : uri.getPath().replace("/", "");
        return path.isEmpty() ? 0 : Integer.parseInt(path);
    }

    /** A lost connection, or a Redis that cannot take writes right now (a replica during a failover, loading). */
    static boolean isOutage(JedisException e) {
        if (e instanceof JedisConnectionException) {
            return true;
        }
        String message = e.getMessage() == null ? "" : e.getMessage();
        return e instanceof JedisDataException && (message.startsWith("READONLY") || message.startsWith("LOADING")
                || message.startsWith("MASTERDOWN") || message.startsWith("NOREPLICAS"));
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (client != null) {
            client.close();
        }
    }
}
