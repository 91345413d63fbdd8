package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.testing.LogCapture;
import dev.usher.testing.Pebble;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Renewals in a fleet, with Pebble issuing short certificates (renewed when a third is left): one order per
 * renewal for the whole fleet, picked up by every node; and Redis stopped: every node goes on serving, no order is
 * placed alone, a node started meanwhile serves its local copy at once, and the renewals happen once Redis is back.
 */
class FleetRenewalTest {
    @RegisterExtension
    static final Servers servers = new Servers();
    private static final Duration LIFETIME = Duration.ofSeconds(15);
    /**
     * After an outage the nodes take their next look at Redis up to 10 s apart and order only 12 s after that
     * (RedisLink.SETTLE), so the last of them may pick up the renewal 22 s after the first could have ordered it.
     * A certificate renewed then must not be due again by that time (15-second ones are, after 10 s: a CI run saw
     * the renewal itself renewed), so the outage case uses 45-second ones, due after 30 s.
     */
    private static final Duration OUTAGE_LIFETIME = Duration.ofSeconds(45);
    private static final Duration LEASE = Duration.ofSeconds(10);

    @TempDir
    Path work;
    static Whoami backend;

    @BeforeAll
    static void startBackend() {
        backend = servers.backend("fleet-renewal-backend");
    }

    @Test
    void aRenewalIsOrderedOnceAndReachesEveryNode() throws Exception {
        List<String> names = FleetNodes.names("renew", 2);
        List<FleetNodes.Node> nodes = List.of(FleetNodes.Node.named(work, "a"), FleetNodes.Node.named(work, "b"),
                FleetNodes.Node.named(work, "c"));
        try (RedisServer redis = RedisServer.start(work.resolve("redis"));
             // Pebble validates at the node started first: a node the CA reached before it listened would fail the
             // validation (as any server would), and that would be an extra order; FleetTest starts all at once
             Pebble pebble = Pebble.builder().httpValidationPort(nodes.get(0).http())
                     .tlsValidationPort(nodes.get(0).https()).certificateValidity(LIFETIME).start()) {
            FleetNodes fleet = FleetNodes.on(work, redis, pebble, backend.port());
            List<Usher> ushers = new ArrayList<>();
            for (FleetNodes.Node node : nodes) {
                ushers.add(servers.track(fleet.start(node, names, LEASE, FleetNodes.QUICK)));
            }
            Map<String, String> first = new HashMap<>();
            for (String name : names) {
                first.put(name, FleetNodes.await(ushers.get(0), name, c -> true, Duration.ofSeconds(30)).sha256());
                for (Usher usher : ushers) {
                    FleetNodes.await(usher, name, c -> c.sha256().equals(first.get(name)), Duration.ofSeconds(10));
                }
            }
            assertThat(pebble.orderCount()).isEqualTo(2);

            Map<String, String> renewed = new HashMap<>();
            for (String name : names) {
                CertifiedKey cert = FleetNodes.await(ushers.get(0), name, c -> !c.sha256().equals(first.get(name)),
                        LIFETIME.plusSeconds(10));
                renewed.put(name, cert.sha256());
                for (Usher usher : ushers) {
                    FleetNodes.await(usher, name, c -> c.sha256().equals(cert.sha256()), Duration.ofSeconds(5));
                }
            }
            assertThat(pebble.orderCount()).as("one renewal per certificate for the three nodes").isEqualTo(4);
            for (String name : names) {
                for (FleetNodes.Node node : nodes) {
                    assertThat(TlsProbe.leafSha256(node.https(), name)).isEqualTo(renewed.get(name));
                }
            }
        }
    }

    @Test
    void withRedisStoppedNodesKeepServingOrderNothingAndRenewOnceItIsBack() throws Exception {
        String name = "outage.example.com";
        FleetNodes.Node a = FleetNodes.Node.named(work, "a");
        FleetNodes.Node b = FleetNodes.Node.named(work, "b");
        FleetNodes.Node late = FleetNodes.Node.named(work, "late");
        try (RedisServer redis = RedisServer.start(work.resolve("redis"));
             Pebble pebble = Pebble.builder().httpValidationPort(a.http()).tlsValidationPort(a.https())
                     .certificateValidity(OUTAGE_LIFETIME).start();
             LogCapture logs = new LogCapture()) {
            FleetNodes fleet = FleetNodes.on(work, redis, pebble, backend.port());
            Usher ua = servers.track(fleet.start(a, List.of(name), LEASE, FleetNodes.QUICK));
            Usher ub = servers.track(fleet.start(b, List.of(name), LEASE, FleetNodes.QUICK));
            CertifiedKey issued = FleetNodes.await(ua, name, c -> true, Duration.ofSeconds(30));
            FleetNodes.await(ub, name, c -> c.sha256().equals(issued.sha256()), Duration.ofSeconds(10));
            assertThat(pebble.orderCount()).isEqualTo(1);

            redis.stop();
            // A node's first start with Redis down and a warm local copy (a's data directory) serves at once
            copy(a.data(), late.data());
            Usher ulate = servers.track(fleet.start(late, List.of(name), LEASE, FleetNodes.QUICK));
            assertThat(ulate.certificates().certificateFor(name).sha256()).isEqualTo(issued.sha256());
            assertThat(TlsProbe.leafSha256(late.https(), name)).isEqualTo(issued.sha256());

            Instant pastDue = issued.renewalDue().plusSeconds(2);
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), pastDue).toMillis()));
            assertThat(pebble.orderCount()).as("no node orders alone while Redis is down").isEqualTo(1);
            for (FleetNodes.Node node : List.of(a, b, late)) {
                assertThat(TlsProbe.leafSha256(node.https(), name)).as(node.name() + " still serves")
                        .isEqualTo(issued.sha256());
            }

            redis.start(); // empty: it kept nothing (no persistence); the nodes' local copies fill it again
            // Orders wait until every node has surely reconnected (RedisLink.SETTLE): one that has not would miss the
            // challenge answer, fail the CA's validation and cost an order
            CertifiedKey renewed = FleetNodes.await(ua, name, c -> !c.sha256().equals(issued.sha256()),
                    Duration.ofSeconds(45));
            for (Usher usher : List.of(ub, ulate)) {
                FleetNodes.await(usher, name, c -> c.sha256().equals(renewed.sha256()), Duration.ofSeconds(10));
            }
            // Exactly one. A node whose lock was the call that found Redis back used to order before the settle time
            // (RedisStorage.tryLock checks again after taking it): the CA reached a node not yet subscribed again,
            // the validation failed and the order was placed again
            assertThat(pebble.orderCount()).as("the renewal, once, after Redis came back").isEqualTo(2);
            String key = "usher:cert:" + fleet.issuerId() + ":" + name;
            assertThat(redis.cli("HGET", key, "sha256")).isEqualTo(renewed.sha256());
            String where = "Redis at 127.0.0.1:" + redis.port();
            assertThat(logs.records.stream().filter(r -> r.startsWith("WARNING dev.usher.fleet.RedisLink: " + where
                    + " is unreachable"))).as("the outage is logged once by each of the three nodes").hasSize(3);
            assertThat(logs.records.stream().filter(r -> r.contains(where + " is reachable again")))
                    .as("and its end once").hasSize(3);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            files.forEach(source -> {
                try {
                    Path target = to.resolve(from.relativize(source).toString());
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else if (!source.getFileName().toString().endsWith(".lock")) {
                        Files.copy(source, target);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
