package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.testing.Pebble;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node holding a name's order lock dies (SIGKILL, a real child process) in the middle of its order: its lease
 * runs out, and another node orders the name and serves it.
 */
class FleetCrashTest {
    @RegisterExtension
    static final Servers servers = new Servers();
    private static final Duration LEASE = Duration.ofSeconds(6);

    @TempDir
    Path work;

    @Test
    void whenTheLockHolderIsKilledMidOrderAnotherNodeOrdersAfterTheLease() throws Exception {
        Whoami backend = servers.backend("fleet-crash-backend");
        List<String> names = List.of("crash.example.com");
        FleetNodes.Node holder = FleetNodes.Node.named(work, "holder");
        FleetNodes.Node survivor = FleetNodes.Node.named(work, "survivor");
        List<Socket> held = new CopyOnWriteArrayList<>();
        // Until the survivor starts, the CA's validation requests reach a port that accepts and never answers: the
        // holder's order stays in the middle, holding the lock, until it is killed.
        try (RedisServer redis = RedisServer.start(work.resolve("redis"));
             Pebble pebble = Pebble.builder().httpValidationPort(survivor.http())
                     .tlsValidationPort(survivor.https()).start();
             ServerSocket blackHole = new ServerSocket(survivor.http(), 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> {
                while (!blackHole.isClosed()) {
                    try {
                        held.add(blackHole.accept());
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });
            FleetNodes fleet = FleetNodes.on(work, redis, pebble, backend.port());
            String lock = "usher:lock:" + fleet.issuerId() + ":" + names.get(0);
            long killedAt;
            Duration leaseLeft; // the lease runs from the holder's last renewal (every third of it)
            try (UsherProcess process = UsherProcess.start(fleet.configFile(holder, names, LEASE),
                    work.resolve("holder.log"), List.of())) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (held.isEmpty()) { // the CA is validating: the order is in its middle
                    assertThat(System.nanoTime()).as(process.output()).isLessThan(deadline);
                    Thread.sleep(20);
                }
                assertThat(redis.cli("GET", lock)).as("the holder holds the lock").startsWith("holder/");
                process.kill();
                killedAt = System.nanoTime();
                leaseLeft = Duration.ofMillis(Long.parseLong(redis.cli("PTTL", lock)));
            }
            assertThat(pebble.orderCount()).isEqualTo(1);
            blackHole.close();
            for (Socket s : held) {
                s.close();
            }

            assertThat(Long.parseLong(redis.cli("PTTL", lock))).as("the dead holder's lock is still there")
                    .isPositive();
            Usher usher = servers.track(fleet.start(survivor, names, LEASE, FleetNodes.QUICK));
            CertifiedKey cert = FleetNodes.await(usher, names.get(0), c -> true, Duration.ofSeconds(30));
            long waited = System.nanoTime() - killedAt;
            assertThat(leaseLeft).isPositive();
            assertThat(Duration.ofNanos(waited)).as("the survivor waited for the dead holder's lease to run out")
                    .isGreaterThanOrEqualTo(leaseLeft.minusMillis(200));
            assertThat(pebble.orderCount()).as("the abandoned order and the survivor's").isEqualTo(2);
            assertThat(redis.cli("HGET", "usher:cert:" + fleet.issuerId() + ":" + names.get(0), "node"))
                    .isEqualTo("survivor");
            assertThat(TlsProbe.leafSha256(survivor.https(), names.get(0))).isEqualTo(cert.sha256());
        }
    }
}
