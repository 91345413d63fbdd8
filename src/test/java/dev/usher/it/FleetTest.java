package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Pem;
import dev.usher.testing.Pebble;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet: several Usher instances sharing certificates, the ACME account and challenge answers through a real
 * Redis ({@code redis-server} on a loopback port), ordering from a real Pebble whose validations reach one chosen
 * node. Orders are counted in Pebble's log.
 */
class FleetTest {
    @RegisterExtension
    static final Servers servers = new Servers();
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @TempDir
    Path work;
    static Whoami backend;

    @BeforeAll
    static void startBackend() {
        backend = servers.backend("fleet-backend");
    }

    @Test
    void threeNodesStartedAtOnceOrderEachOfTwentyNamesOnceAndServeTheSameCertificates() throws Exception {
        List<String> names = FleetNodes.names("n", 20);
        FleetNodes.Node a = FleetNodes.Node.named(work, "a");
        FleetNodes.Node b = FleetNodes.Node.named(work, "b");
        FleetNodes.Node c = FleetNodes.Node.named(work, "c");
        Pebble.Later ca = Pebble.Later.in(work);
        try (RedisServer redis = RedisServer.start(work.resolve("redis"), "--rdbcompression", "no");
             var starter = java.util.concurrent.Executors.newThreadPerTaskExecutor(Thread.ofPlatform().factory())) {
            FleetNodes fleet = new FleetNodes(work, "redis: \"" + redis.uri() + "\"", ca.directory(), ca.trust(),
                    backend.port(), "");
            // The three start at once, each on a thread of its own, while the CA is not up yet: their first attempts
            // fail, and once it is, they race for the twenty names. (A CA up from the start could validate at c before
            // c listens, which would fail an order as it would in a real fleet whose DNS names a node still starting.)
            List<CompletableFuture<Usher>> starting = new ArrayList<>();
            for (FleetNodes.Node node : List.of(a, b, c)) {
                starting.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return servers.track(fleet.start(node, names, LONG_LEASE, FleetNodes.QUICK));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, starter));
            }
            List<Usher> ushers = starting.stream().map(CompletableFuture::join).toList();
            // Pebble validates at node c only: every name ordered by a or b is answered by c from the shared answers
            try (Pebble pebble = ca.builder()
                    .httpValidationPort(c.http()).tlsValidationPort(c.https()).start()) {
                assertFleet(redis, pebble, fleet, ushers, List.of(a, b, c), names);
            }
        }
    }

    /**
     * What a fleet that ordered {@code names} shows: one order per name, every node serving the same certificate,
     * Redis holding it with no private key readable in its dump.
     */
    private static void assertFleet(RedisServer redis, Pebble pebble, FleetNodes fleet, List<Usher> ushers,
                                    List<FleetNodes.Node> nodes, List<String> names) throws Exception {
        FleetNodes.Node a = nodes.get(0);
        for (Usher usher : ushers) {
            for (String name : names) {
                FleetNodes.await(usher, name, cert -> true, Duration.ofSeconds(120));
            }
        }
        assertThat(pebble.orderCount()).as("one order per name across the fleet").isEqualTo(20);
        Map<String, Integer> orderedBy = new HashMap<>();
        for (String name : names) {
            String sha = TlsProbe.leafSha256(a.https(), name);
            for (FleetNodes.Node node : nodes) {
                assertThat(TlsProbe.leafSha256(node.https(), name)).as(name + " on " + node.name()).isEqualTo(sha);
            }
            String key = "usher:cert:" + fleet.issuerId() + ":" + name;
            assertThat(redis.cli("HGET", key, "sha256")).isEqualTo(sha);
            orderedBy.merge(redis.cli("HGET", key, "node"), 1, Integer::sum);
        }
        System.out.println("FleetTest: 20 names, " + pebble.orderCount() + " orders at Pebble, stored by "
                + orderedBy + " (all validated at node c)");
        assertThat(orderedBy.keySet()).isSubsetOf("a", "b", "c");

        // A stolen dump of Redis: the certificates are there in clear (as they are public anyway), no private key is
        byte[] dump = redis.dump();
        String text = new String(dump, StandardCharsets.ISO_8859_1);
        assertThat(text).contains("BEGIN CERTIFICATE").doesNotContain("PRIVATE KEY");
        for (String name : names) {
            CertifiedKey served = ushers.get(0).certificates().certificateFor(name);
            String keyBase64 = java.util.Base64.getEncoder().encodeToString(served.key().getEncoded());
            assertThat(text).doesNotContain(keyBase64.substring(0, 48));
            String pem = Pem.privateKey(served.key());
            assertThat(text).doesNotContain(pem.lines().skip(1).findFirst().orElseThrow());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"http-01", "tls-alpn-01"})
    void theNodeTheCaReachesAnswersTheChallengeOfAnOrderAnotherNodePlaced(String challenge) throws Exception {
        List<String> names = List.of("answered.example.com");
        FleetNodes.Node orderer = FleetNodes.Node.named(work, "orderer");
        FleetNodes.Node answerer = FleetNodes.Node.named(work, "answerer");
        Pebble.Later ca = Pebble.Later.in(work);
        try (RedisServer redis = RedisServer.start(work.resolve("redis"))) {
            FleetNodes fleet = new FleetNodes(work, "redis: \"" + redis.uri() + "\"", ca.directory(), ca.trust(),
                    backend.port(), "challenge: " + challenge);
            // The answerer starts while the CA is down: its own order fails, and it waits ten minutes to try again
            Usher answering = servers.track(fleet.start(answerer, names, LONG_LEASE,
                    new dev.usher.cert.Retry(Duration.ofMinutes(10), Duration.ofMinutes(10))));
            Thread.sleep(500);
            try (Pebble pebble = ca.builder()
                    .httpValidationPort(answerer.http()).tlsValidationPort(answerer.https()).start()) {
                Usher ordering = servers.track(fleet.start(orderer, names, LONG_LEASE, FleetNodes.QUICK));
                CertifiedKey cert = FleetNodes.await(ordering, names.get(0), c -> true, Duration.ofSeconds(30));
                assertThat(pebble.orderCount()).isEqualTo(1);
                assertThat(redis.cli("HGET", "usher:cert:" + fleet.issuerId() + ":" + names.get(0), "node"))
                        .as("the order was placed (and stored) by the other node").isEqualTo("orderer");
                // Pebble's validations go to the answerer's ports only (its httpPort/tlsPort): the answer came from there
                CertifiedKey picked = FleetNodes.await(answering, names.get(0),
                        c -> c.sha256().equals(cert.sha256()), Duration.ofSeconds(10));
                assertThat(TlsProbe.leafSha256(answerer.https(), names.get(0))).isEqualTo(picked.sha256());
            }
        }
    }
}
