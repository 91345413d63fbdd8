package dev.usher.fleet;

import dev.usher.cert.CertStore;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.cert.StorageUnavailableException;
import dev.usher.config.StorageSetting;
import dev.usher.testing.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The two moments a node could miss a challenge answer another node published, on a real redis-server: joining
 * (the node must hold the answers in progress before it accepts connections) and reconnecting after an outage
 * (orders wait until every other node has surely re-subscribed).
 */
class FleetJoinTest {
    @TempDir
    Path dir;

    private StorageSetting setting(RedisServer redis, String node) {
        byte[] key = new byte[32];
        key[0] = 7;
        return new StorageSetting(redis.uri(), null, null, false, key, node, Duration.ofSeconds(30));
    }

    private static FleetNode self(String name) {
        Instant now = Instant.now();
        return new FleetNode(name, "test", "hash", now, now, now);
    }

    @Test
    void aJoiningNodeHoldsTheAnswersInProgressWhenJoinReturns() {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"))) {
            ChallengeAnswers first = new ChallengeAnswers();
            try (Fleet a = Fleet.join(setting(redis, "a"), dir.resolve("a"), first, () -> self("a"))) {
                first.putHttp01("token-1", "token-1.thumbprint"); // published for an order of a's
                for (int i = 0; i < 5; i++) {
                    ChallengeAnswers joining = new ChallengeAnswers();
                    try (Fleet b = Fleet.join(setting(redis, "b" + i), dir.resolve("b" + i), joining,
                            () -> self("b"))) {
                        assertThat(joining.http01("token-1")).as("join " + i).isEqualTo("token-1.thumbprint");
                    }
                }
            }
        }
    }

    @Test
    void aPublicationWaitsForEveryNodeWithAHeartbeatEvenOneNotSubscribedYet() throws Exception {
        ChallengeAnswers aAnswers = new ChallengeAnswers();
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
             Fleet a = Fleet.join(setting(redis, "a"), dir.resolve("a"), aAnswers, () -> self("a"))) {
            // b is in the fleet (its heartbeat is there) but not on the events channel yet, as after an outage
            // before its next attempt. Counting the channel's subscribers, a would not wait for it.
            redis.cli("HSET", "usher:node:b", "version", "test");
            ChallengeAnswers bAnswers = new ChallengeAnswers();
            CompletableFuture<String> heldByB = CompletableFuture.supplyAsync(() -> {
                aAnswers.putHttp01("token-2", "token-2.thumbprint"); // for an order of a's
                return bAnswers.http01("token-2"); // what b holds when the CA may be told to validate
            });
            Thread.sleep(1000);
            assertThat(heldByB).as("a waits for b").isNotDone();
            try (Fleet b = Fleet.join(setting(redis, "b"), dir.resolve("b"), bAnswers, () -> self("b"))) {
                assertThat(heldByB.get(10, TimeUnit.SECONDS)).isEqualTo("token-2.thumbprint");
            }
        }
    }

    @Test
    void aNodeThatFindsRedisDownJoinsAtOnce() {
        RedisServer redis = RedisServer.start(dir.resolve("redis"));
        redis.stop();
        long started = System.nanoTime();
        try (Fleet joined = Fleet.join(setting(redis, "a"), dir.resolve("a"), new ChallengeAnswers(),
                () -> self("a"))) {
            assertThat(joined.reachable()).isFalse();
        } finally {
            redis.close();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("a refused connection is not waited for")
                .isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void afterAnOutageOrdersWaitUntilEveryNodeHasReconnected() throws Exception {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
             Fleet a = Fleet.join(setting(redis, "a"), dir.resolve("a"), new ChallengeAnswers(), () -> self("a"))) {
            assertThat(a.storage().tryLock("ca", "first.example.com")).isPresent();
            redis.stop();
            assertThatThrownBy(() -> a.storage().tryLock("ca", "down.example.com"))
                    .isInstanceOf(StorageUnavailableException.class);
            redis.start();
            awaitReachable(a);
            assertThatThrownBy(() -> a.storage().tryLock("ca", "back.example.com"))
                    .isInstanceOf(StorageUnavailableException.class)
                    .hasMessageContaining("wait").hasMessageContaining("every node to reconnect");
        }
    }

    @Test
    void anOrderIsRefusedWhenTakingItsLockIsWhatFindsRedisBack() throws Exception {
        // A link of its own, with no events thread or heartbeat to notice Redis first: the lock is the first call
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
             RedisLink link = new RedisLink(setting(redis, "a"))) {
            StorageSetting setting = setting(redis, "a");
            RedisStorage storage = new RedisStorage(link, new CertStore(dir.resolve("a")),
                    new Sealing(setting.encryptionKey()), "a", Duration.ofSeconds(30), timer);
            storage.tryLock("ca", "first.example.com").orElseThrow().close();
            redis.stop();
            assertThatThrownBy(() -> storage.tryLock("ca", "down.example.com"))
                    .isInstanceOf(StorageUnavailableException.class);
            redis.start();
            Thread.sleep(link.untilNextAttempt().toMillis() + 50); // the link still thinks Redis is down
            assertThat(link.state()).isEqualTo(RedisLink.State.DOWN);
            assertThatThrownBy(() -> storage.tryLock("ca", "back.example.com"))
                    .isInstanceOf(StorageUnavailableException.class).hasMessageContaining("every node to reconnect");
            assertThat(redis.cli("EXISTS", "usher:lock:ca:back.example.com")).as("and the lock given back")
                    .isEqualTo("0");
        } finally {
            timer.shutdownNow();
        }
    }

    /** Redis answers again as far as this node knows: any call tells (the heartbeat, the events' next attempt). */
    private static void awaitReachable(Fleet fleet) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!fleet.reachable()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IOException("the node did not see Redis again within 20 s");
            }
            Thread.sleep(50);
        }
    }
}
