package dev.usher;

import dev.usher.cert.CertStorage;
import dev.usher.cert.ChallengeAnswers;
import dev.usher.config.UsherConfig;
import dev.usher.fleet.Fleet;
import dev.usher.fleet.FleetNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;

/**
 * This server's place in a fleet ({@code storage:}): the {@link Fleet} and what its heartbeat says about this node
 * (version, config hash, last reload). Made at start when the first config has {@code storage:}; the Redis client's
 * classes load only through here.
 */
final class FleetMembership implements AutoCloseable {
    private final Instant started = Instant.now();
    private final String version = UsherVersion.get();
    private final String node;
    private final Fleet fleet;
    private volatile String configHash;
    private volatile Instant lastReload;

    private FleetMembership(UsherConfig first, ChallengeAnswers answers) {
        loadedQuietly(first);
        this.node = first.storage().node();
        this.fleet = Fleet.join(first.storage(), first.dataDir(), answers, this::self);
    }

    static FleetMembership join(UsherConfig first, ChallengeAnswers answers) {
        return new FleetMembership(first, answers);
    }

    Fleet fleet() {
        return fleet;
    }

    CertStorage storage() {
        return fleet.storage();
    }

    /** {@code config} is in service now: the heartbeat says so at once. */
    void loaded(UsherConfig config) {
        loadedQuietly(config);
        fleet.beat();
    }

    private void loadedQuietly(UsherConfig config) {
        configHash = configHash(config);
        lastReload = Instant.now();
    }

    private FleetNode self() {
        return new FleetNode(node, version, configHash, lastReload, started, Instant.now());
    }

    /**
     * What of a config must be the same on every node, hashed: the sites, the ACME settings and the streams. The
     * listen addresses, the data directory and the node's own name may differ from node to node.
     */
    static String configHash(UsherConfig config) {
        String shared = config.sites() + "\n" + config.acme() + "\n" + config.streams();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(shared.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        fleet.close();
    }
}
