package dev.usher.upstream;

import dev.usher.config.Balancing.Policy;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static dev.usher.upstream.TestPools.balancing;
import static dev.usher.upstream.TestPools.ip;
import static dev.usher.upstream.TestPools.pools;
import static org.assertj.core.api.Assertions.assertThat;

/** Failures in a row take a backend out for fail_timeout; a success brings it back. Driven by a fake clock. */
class PassiveHealthTest {
    private static final InetAddress CLIENT = ip("192.0.2.10");
    private static final long SECOND = 1_000_000_000L;

    /** Starts near the wrap-around of nanoTime, so that comparisons must be overflow-safe. */
    private final AtomicLong now = new AtomicLong(Long.MAX_VALUE - 5 * SECOND);

    private UpstreamGroup group(Policy policy, List<UpstreamPool> pools, int maxFails) {
        return new UpstreamGroup("app.example.com", pools, balancing(policy, maxFails, Duration.ofSeconds(10)),
                now::get);
    }

    private static void fail(UpstreamGroup g, UpstreamPool pool, int times) {
        for (int i = 0; i < times; i++) {
            g.failed(pool);
        }
    }

    @Test
    void fewerFailuresThanMaxFailsKeepTheBackendInRotation() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 3);
        fail(g, p.get(0), 2);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status().get(0)).isEqualTo(new BackendStatus(p.get(0).address(), true, 0, 2, null));
    }

    @Test
    void maxFailsInARowTakeTheBackendOutForFailTimeout() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 3);
        fail(g, p.get(0), 3);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        assertThat(g.status().get(0)).isEqualTo(
                new BackendStatus(p.get(0).address(), false, 0, 3, "3 failures in a row"));

        now.addAndGet(10 * SECOND - 1);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        now.addAndGet(1);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status().get(0).up()).isTrue();
    }

    @Test
    void oneFailureAfterTheTimeoutTakesItOutAgain() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 3);
        fail(g, p.get(0), 3);
        now.addAndGet(10 * SECOND);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        g.failed(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        now.addAndGet(10 * SECOND);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
    }

    @Test
    void aSuccessResetsTheCount() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 3);
        fail(g, p.get(0), 2);
        g.succeeded(p.get(0));
        fail(g, p.get(0), 2);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status().get(0).consecutiveFailures()).isEqualTo(2);
    }

    @Test
    void aSuccessEndsTheDownWindowAtOnce() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 1);
        g.failed(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        // A request already in flight to it when it went down comes back fine.
        g.succeeded(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status().get(0)).isEqualTo(new BackendStatus(p.get(0).address(), true, 0, 0, null));
    }

    @Test
    void maxFailsZeroTurnsPassiveHealthOff() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.FIRST, p, 0);
        fail(g, p.get(0), 100);
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status().get(0).up()).isTrue();
        assertThat(g.status().get(0).consecutiveFailures()).isEqualTo(100);
    }

    @Test
    void whenAllAreDownTheOneBackSoonestIsTried() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, p, 1);
        g.failed(p.get(1));
        now.addAndGet(SECOND);
        g.failed(p.get(2));
        now.addAndGet(SECOND);
        g.failed(p.get(0));
        assertThat(g.status()).noneMatch(BackendStatus::up);
        for (int i = 0; i < 5; i++) {
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        }
        // Its attempt failed again: the window moves out, and the next request tries the next one.
        g.failed(p.get(1));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(2));
        assertThat(g.pick(CLIENT, List.of(p.get(2)))).isSameAs(p.get(0));
        assertThat(g.pick(CLIENT, p)).isNull();
    }

    @Test
    void aSingleBackendIsAlwaysTried() {
        List<UpstreamPool> p = pools(1);
        UpstreamGroup g = group(Policy.LEAST_CONN, p, 1);
        fail(g, p.get(0), 5);
        assertThat(g.status().get(0).up()).isFalse();
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.pick(CLIENT, p)).isNull();
    }

    @Test
    void healthIsPerGroupNotPerPool() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup a = group(Policy.FIRST, p, 1);
        UpstreamGroup b = group(Policy.FIRST, p, 1);
        a.failed(p.get(0));
        assertThat(a.pick(CLIENT, List.of())).isSameAs(p.get(1));
        assertThat(b.pick(CLIENT, List.of())).isSameAs(p.get(0));
    }
}
