package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Pebble;
import dev.usher.testing.RedisServer;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Predicate;

/**
 * Usher nodes of one fleet for tests: the same sites and CA, a Redis shared through {@code storage:}, each node with
 * its own ports, data directory and name. In-process nodes ({@link #start}) or the config file of a node to run as a
 * child process ({@link #configFile}).
 */
final class FleetNodes {
    /** Orders that fail (a lock held by another node) are tried again soon, as a real fleet's would be later. */
    static final Retry QUICK = new Retry(Duration.ofMillis(200), Duration.ofSeconds(1));

    private final Path work;
    private final String storage;
    private final URI directory;
    private final Path trust;
    private final int backendPort;
    private final String acmeExtra;

    /**
     * @param storage   the {@code storage:} mapping's redis part: {@code redis: "redis://..."} or a Sentinel
     * @param acmeExtra more {@code acme:} settings, such as {@code challenge: tls-alpn-01}, or ""
     */
    FleetNodes(Path work, String storage, URI directory, Path trust, int backendPort, String acmeExtra)
            throws IOException {
        this.work = work;
        this.storage = storage;
        this.directory = directory;
        this.trust = trust;
        this.backendPort = backendPort;
        this.acmeExtra = acmeExtra;
        Path key = work.resolve("storage.key");
        if (!Files.exists(key)) {
            byte[] random = new byte[32];
            new java.security.SecureRandom().nextBytes(random);
            Files.createDirectories(work);
            Files.writeString(key, HexFormat.of().formatHex(random) + "\n");
        }
    }

    static FleetNodes on(Path work, RedisServer redis, Pebble pebble, int backendPort) throws IOException {
        return new FleetNodes(work, "redis: \"" + redis.uri() + "\"", pebble.directory(), pebble.trustPem(),
                backendPort, "");
    }

    /** One node's ports and folder. */
    record Node(String name, int http, int https, Path data) {
        static Node named(Path work, String name) {
            return new Node(name, Pebble.freePort(), Pebble.freePort(), work.resolve("data-" + name));
        }
    }

    String config(Node node, List<String> names, Duration lease) {
        StringBuilder yaml = new StringBuilder("""
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                http3: false
                admin: off
                data: %s
                acme: {ca: "%s", trust: "%s"%s}
                storage: {%s, encryption_key_file: "%s", node: %s, lease: %ds}
                sites:
                """.formatted(node.http(), node.https(), node.data(), directory, trust,
                acmeExtra.isEmpty() ? "" : ", " + acmeExtra, storage, work.resolve("storage.key"), node.name(),
                lease.toSeconds()));
        for (String name : names) {
            yaml.append("  ").append(name).append(": 127.0.0.1:").append(backendPort).append('\n');
        }
        return yaml.toString();
    }

    Usher start(Node node, List<String> names, Duration lease, Retry retry) throws Exception {
        return Usher.start(ConfigLoader.parse(config(node, names, lease), node.name() + ".yaml"), 1, retry,
                Duration.ofSeconds(1));
    }

    Path configFile(Node node, List<String> names, Duration lease) throws IOException {
        Path file = work.resolve(node.name() + ".yaml");
        Files.writeString(file, config(node, names, lease));
        return file;
    }

    String issuerId() {
        return CertManager.acmeIssuerId(directory);
    }

    static List<String> names(String prefix, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            names.add(prefix + i + ".example.com");
        }
        return names;
    }

    /** Waits until {@code usher} serves a certificate for {@code name} that {@code wanted} accepts. */
    static CertifiedKey await(Usher usher, String name, Predicate<CertifiedKey> wanted, Duration limit)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            CertifiedKey cert = usher.certificates().certificateFor(name);
            if (cert != null && wanted.test(cert)) {
                return cert;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no (new) certificate for " + name + " within " + limit);
    }
}
