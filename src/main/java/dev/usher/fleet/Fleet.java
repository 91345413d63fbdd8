package dev.usher.fleet;

import dev.usher.cert.CertStorage;
import dev.usher.cert.CertStore;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.config.StorageSetting;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * This node's membership of a fleet ({@code storage: {redis: ...}}): the shared certificate storage, the challenge
 * answers relayed both ways, the events channel and the heartbeat. Made at start when the config has
 * {@code storage:} (only then are the Redis client's classes loaded); lives until the server stops.
 */
public final class Fleet implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Fleet.class.getName());
    /** How long joining waits for Redis before this node accepts connections (a refused connection: not at all). */
    private static final Duration FIRST_CONTACT = Duration.ofSeconds(2);

    private final StorageSetting setting;
    private final RedisLink redis;
    private final RedisStorage storage;
    private final Events events;
    private final Heartbeat heartbeat;
    private final ScheduledExecutorService timer;
    private final ChallengeAnswers answers;

    private Fleet(StorageSetting setting, RedisLink redis, RedisStorage storage, Events events, Heartbeat heartbeat,
                  ScheduledExecutorService timer, ChallengeAnswers answers) {
        this.setting = setting;
        this.redis = redis;
        this.storage = storage;
        this.events = events;
        this.heartbeat = heartbeat;
        this.timer = timer;
        this.answers = answers;
    }

    /**
     * Joins the fleet: waits for Redis only as long as the first contact takes, up to {@link #FIRST_CONTACT}, so
     * that this node answers the fleet's challenges in progress from its first connection; a node whose Redis is
     * down serves its local copy at once and catches up when it is back.
     *
     * @param dataDir the local copy
     * @param answers this node's challenge answers, from now on shared with the fleet
     * @param self    what this node's heartbeat says
     */
    public static Fleet join(StorageSetting setting, Path dataDir, ChallengeAnswers answers,
                             Supplier<FleetNode> self) {
        RedisLink redis = new RedisLink(setting);
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("usher-fleet-timer").factory());
        Sealing sealing = new Sealing(setting.encryptionKey());
        RedisStorage storage = new RedisStorage(redis, new CertStore(dataDir), sealing, setting.node(),
                setting.lease(), timer);
        Heartbeat heartbeat = new Heartbeat(redis, storage, self);
        ChallengeRelay relay = new ChallengeRelay(redis, sealing, setting.node(), answers, heartbeat);
        Events events = new Events(redis, setting.node(), storage, relay);
        redis.whenBack(storage::resync);
        redis.whenBack(heartbeat::beat);
        answers.relayTo(relay);
        events.start();
        events.awaitFirstAttempt(FIRST_CONTACT);
        long every = Heartbeat.EVERY.toMillis();
        timer.scheduleAtFixedRate(heartbeat::beat, 0, every, TimeUnit.MILLISECONDS);
        LOG.log(Level.INFO, "node {0} of the fleet sharing {1}", setting.node(), setting.where());
        return new Fleet(setting, redis, storage, events, heartbeat, timer, answers);
    }

    /** Where certificates are kept: Redis, with the data directory as the local copy. */
    public CertStorage storage() {
        return storage;
    }

    /** This node's name. */
    public String node() {
        return setting.node();
    }

    /** Where the fleet's Redis is. */
    public String where() {
        return setting.where();
    }

    /** True while Redis answers (as far as the last call knows). */
    public boolean reachable() {
        return redis.state() == RedisLink.State.UP;
    }

    /** The nodes with a current heartbeat, by name. */
    public List<FleetNode> nodes() throws IOException {
        return heartbeat.nodes();
    }

    /** Writes this node's heartbeat now (after a reload, so the fleet view shows the new config at once). */
    public void beat() {
        timer.execute(heartbeat::beat);
    }

    @Override
    public void close() {
        answers.relayTo(ChallengeAnswers.Relay.NONE);
        events.close();
        timer.shutdownNow();
        redis.close();
    }
}
