package dev.usher.upstream;

import dev.usher.config.Balancing.Policy;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.usher.upstream.TestPools.balancing;
import static dev.usher.upstream.TestPools.client;
import static dev.usher.upstream.TestPools.ip;
import static dev.usher.upstream.TestPools.pools;
import static org.assertj.core.api.Assertions.assertThat;

/** Each load-balancing policy, through the public {@link UpstreamGroup} API. */
class PoliciesTest {
    private static final InetAddress CLIENT = ip("192.0.2.10");

    private static UpstreamGroup group(Policy policy, List<UpstreamPool> pools) {
        return new UpstreamGroup("test", pools, balancing(policy, 1, Duration.ofSeconds(30)));
    }

    // --- round robin

    @Test
    void roundRobinTakesBackendsInTurn() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, p);
        for (int round = 0; round < 3; round++) {
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(2));
        }
    }

    @Test
    void roundRobinSkipsTriedAndDownBackends() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, p);
        g.failed(p.get(1)); // maxFails 1: down
        Map<UpstreamPool, Integer> counts = new HashMap<>();
        for (int i = 0; i < 600; i++) {
            UpstreamPool picked = g.pick(CLIENT, List.of(p.get(2)));
            counts.merge(picked, 1, Integer::sum);
        }
        assertThat(counts).containsOnlyKeys(p.get(0));
        assertThat(g.pick(CLIENT, List.of(p.get(0), p.get(2)))).isSameAs(p.get(1)); // all-down fallback
    }

    @Test
    void roundRobinSpreadsEvenlyOverUsableBackends() {
        List<UpstreamPool> p = pools(4);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, p);
        g.failed(p.get(3));
        Map<UpstreamPool, Integer> counts = new HashMap<>();
        for (int i = 0; i < 4000; i++) {
            counts.merge(g.pick(CLIENT, List.of()), 1, Integer::sum);
        }
        assertThat(counts).doesNotContainKey(p.get(3));
        // The down backend's turn goes to the next one, so shares are 1/4, 1/4, 2/4: uneven but every one served.
        assertThat(counts.get(p.get(0))).isEqualTo(2000);
        assertThat(counts.get(p.get(1))).isEqualTo(1000);
        assertThat(counts.get(p.get(2))).isEqualTo(1000);
    }

    @Test
    void backendListedTwiceGetsTwoTurnsButOneState() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, List.of(p.get(0), p.get(0), p.get(1)));
        Map<UpstreamPool, Integer> counts = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            counts.merge(g.pick(CLIENT, List.of()), 1, Integer::sum);
        }
        assertThat(counts).containsEntry(p.get(0), 200).containsEntry(p.get(1), 100);
        assertThat(g.status()).hasSize(2);
        g.failed(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
    }

    // --- least connections

    @Test
    void leastConnPicksTheLeastLoaded() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.LEAST_CONN, p);
        g.requestStarted(p.get(0));
        g.requestStarted(p.get(0));
        g.requestStarted(p.get(1));
        for (int i = 0; i < 10; i++) {
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(2));
        }
        g.requestStarted(p.get(2));
        g.requestStarted(p.get(2));
        for (int i = 0; i < 10; i++) {
            assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        }
        g.requestEnded(p.get(0));
        g.requestEnded(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
        assertThat(g.status()).extracting(BackendStatus::inFlight).containsExactly(0, 1, 2);
    }

    @Test
    void leastConnSharesTiesInTurn() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.LEAST_CONN, p);
        Map<UpstreamPool, Integer> counts = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            counts.merge(g.pick(CLIENT, List.of()), 1, Integer::sum);
        }
        assertThat(counts.values()).containsOnly(100);
    }

    @Test
    void leastConnSkipsTriedAndDownEvenWhenIdle() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.LEAST_CONN, p);
        g.requestStarted(p.get(1));
        g.requestStarted(p.get(2));
        g.requestStarted(p.get(2));
        g.failed(p.get(0)); // idle but down
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        assertThat(g.pick(CLIENT, Set.of(p.get(1)))).isSameAs(p.get(2));
    }

    // --- first (failover)

    @Test
    void firstUsesTheFirstBackendWhileItIsUp() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.FIRST, p);
        for (int i = 0; i < 20; i++) {
            assertThat(g.pick(client(i), List.of())).isSameAs(p.get(0));
        }
    }

    @Test
    void firstFailsOverInConfigOrder() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.FIRST, p);
        assertThat(g.pick(CLIENT, List.of(p.get(0)))).isSameAs(p.get(1));
        g.failed(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(1));
        assertThat(g.pick(CLIENT, List.of(p.get(1)))).isSameAs(p.get(2));
        g.failed(p.get(1));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(2));
        g.succeeded(p.get(0));
        assertThat(g.pick(CLIENT, List.of())).isSameAs(p.get(0));
    }

    // --- ip hash

    @Test
    void ipHashSendsAClientToTheSameBackendEveryTime() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.IP_HASH, p);
        for (int c = 0; c < 50; c++) {
            UpstreamPool first = g.pick(client(c), List.of());
            for (int i = 0; i < 20; i++) {
                assertThat(g.pick(client(c), List.of())).isSameAs(first);
            }
        }
    }

    @Test
    void ipHashChoiceSurvivesRestartAndReordering() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g1 = group(Policy.IP_HASH, p);
        // A new run: new pool objects for the same addresses, listed in another order.
        List<UpstreamPool> q = pools(3);
        UpstreamGroup g2 = group(Policy.IP_HASH, List.of(q.get(2), q.get(0), q.get(1)));
        for (int c = 0; c < 500; c++) {
            assertThat(g2.pick(client(c), List.of()).address()).isEqualTo(g1.pick(client(c), List.of()).address());
        }
    }

    @Test
    void ipHashSpreadsClientsEvenly() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.IP_HASH, p);
        Map<UpstreamPool, Integer> counts = new HashMap<>();
        int clients = 30_000;
        for (int c = 0; c < clients; c++) {
            counts.merge(g.pick(client(c), List.of()), 1, Integer::sum);
        }
        assertThat(counts).hasSize(3);
        assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(clients * 30 / 100, clients * 37 / 100));
    }

    @Test
    void ipHashMovesOnlyTheClientsOfABackendThatGoesDown() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.IP_HASH, p);
        int clients = 10_000;
        UpstreamPool[] before = new UpstreamPool[clients];
        for (int c = 0; c < clients; c++) {
            before[c] = g.pick(client(c), List.of());
        }
        g.failed(p.get(1));
        Map<UpstreamPool, Integer> movedTo = new HashMap<>();
        for (int c = 0; c < clients; c++) {
            UpstreamPool now = g.pick(client(c), List.of());
            if (before[c] == p.get(1)) {
                assertThat(now).isNotSameAs(p.get(1));
                movedTo.merge(now, 1, Integer::sum);
            } else {
                assertThat(now).isSameAs(before[c]);
            }
        }
        // The displaced clients spread over both remaining backends rather than all landing on one.
        assertThat(movedTo).containsOnlyKeys(p.get(0), p.get(2));
        assertThat(movedTo.values()).allSatisfy(n -> assertThat(n).isGreaterThan(clients / 10));

        g.succeeded(p.get(1));
        for (int c = 0; c < clients; c++) {
            assertThat(g.pick(client(c), List.of())).isSameAs(before[c]);
        }
    }

    @Test
    void ipHashSkipsTriedWithAStableSecondChoice() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.IP_HASH, p);
        for (int c = 0; c < 100; c++) {
            UpstreamPool first = g.pick(client(c), List.of());
            UpstreamPool second = g.pick(client(c), List.of(first));
            assertThat(second).isNotNull().isNotSameAs(first);
            assertThat(g.pick(client(c), List.of(first))).isSameAs(second);
            UpstreamPool third = g.pick(client(c), List.of(first, second));
            assertThat(third).isNotNull().isNotIn(first, second);
            assertThat(g.pick(client(c), List.of(first, second, third))).isNull();
        }
    }

    @Test
    void ipHashHandlesIpv6AndUnknownClients() {
        List<UpstreamPool> p = pools(3);
        UpstreamGroup g = group(Policy.IP_HASH, p);
        InetAddress v6 = ip("2001:db8::1234");
        UpstreamPool picked = g.pick(v6, List.of());
        assertThat(g.pick(ip("2001:db8::1234"), List.of())).isSameAs(picked);
        assertThat(g.pick(null, List.of())).isSameAs(g.pick(null, List.of())).isNotNull();
    }

    // --- common

    @Test
    void everyPolicyReturnsNullWhenEveryBackendWasTried() {
        for (Policy policy : Policy.values()) {
            List<UpstreamPool> p = pools(3);
            UpstreamGroup g = group(policy, p);
            assertThat(g.pick(CLIENT, p)).as(policy.name()).isNull();
            assertThat(g.pick(CLIENT, List.of(p.get(0), p.get(2)))).as(policy.name()).isSameAs(p.get(1));
        }
    }

    @Test
    void callsForAForeignPoolAreIgnored() {
        List<UpstreamPool> p = pools(2);
        UpstreamGroup g = group(Policy.ROUND_ROBIN, p);
        UpstreamPool other = TestPools.pool("10.9.9.9", 80);
        g.requestStarted(other);
        g.failed(other);
        g.succeeded(other);
        g.requestEnded(other);
        assertThat(g.status()).allSatisfy(s -> assertThat(s.up()).isTrue());
    }
}
