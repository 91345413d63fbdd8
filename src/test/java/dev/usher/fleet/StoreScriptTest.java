package dev.usher.fleet;

import dev.usher.testing.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisStorage#STORE}, the script every certificate save runs, on a real redis-server: a stale lock holder
 * (a smaller fencing token) is refused; a local copy sent up after an outage goes only where it is newer and does not
 * raise the token, so the lock holder's newer certificate saved right after it is not refused (which once made a
 * fleet order a renewal twice).
 */
class StoreScriptTest {
    @TempDir
    static Path dir;
    static RedisServer redis;

    @BeforeAll
    static void start() {
        redis = RedisServer.start(dir);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    /** The script's answer (1 stored, 0 refused) for a save of a certificate expiring at {@code notAfter}. */
    static String store(String key, long fence, long notAfter, boolean withoutLock, String sha) {
        return redis.cli("EVAL", RedisStorage.STORE, "1", key, Long.toString(fence), Long.toString(notAfter),
                withoutLock ? "1" : "0", "CHAIN", "SEALED", sha, "node-a", "2026-12-02T00:00:00Z");
    }

    static String stored(String key, String field) {
        return redis.cli("HGET", key, field);
    }

    @Test
    void aStaleLockHolderIsRefused() {
        assertThat(store("cert:a", 5, 2000, false, "new")).isEqualTo("1");
        assertThat(store("cert:a", 3, 3000, false, "stale")).as("a smaller fencing token").isEqualTo("0");
        assertThat(stored("cert:a", "sha256")).isEqualTo("new");
    }

    @Test
    void aCopySentUpGoesOnlyWhereItIsNewerAndLeavesTheTokenAsItWas() {
        assertThat(store("cert:b", 7, 2000, false, "ordered")).isEqualTo("1");
        assertThat(store("cert:b", 50, 1000, true, "older copy")).isEqualTo("0");
        assertThat(store("cert:b", 51, 2500, true, "newer copy")).isEqualTo("1");
        assertThat(stored("cert:b", "sha256")).isEqualTo("newer copy");
        assertThat(stored("cert:b", "fence")).isEqualTo("7");
    }

    @Test
    void anOlderCopySentUpJustBeforeTheLockHoldersSaveDoesNotRefuseIt() {
        // Redis came back empty: a node sends up its old copy (fresh token 90) while another, holding the lock
        // under token 80 from before, saves the renewed certificate
        assertThat(store("cert:c", 90, 1000, true, "old copy")).isEqualTo("1");
        assertThat(store("cert:c", 80, 2000, false, "renewed")).isEqualTo("1");
        assertThat(stored("cert:c", "sha256")).isEqualTo("renewed");
    }
}
