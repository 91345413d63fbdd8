package dev.usher.fleet;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Each node's line in the fleet view: every {@link #EVERY} it writes its name, version, config hash and last
 * reload to {@code usher:node:NAME}, which expires after {@link #TTL}, so a node that stopped drops out by itself.
 */
final class Heartbeat {
    private static final System.Logger LOG = System.getLogger(Heartbeat.class.getName());
    static final Duration EVERY = Duration.ofSeconds(10);
    static final Duration TTL = Duration.ofSeconds(35);

    private final RedisLink redis;
    private final RedisStorage storage;
    private final Supplier<FleetNode> self;

    Heartbeat(RedisLink redis, RedisStorage storage, Supplier<FleetNode> self) {
        this.redis = redis;
        this.storage = storage;
        this.self = self;
    }

    /** Writes this node's heartbeat now; an unreachable Redis is the link's to log. */
    void beat() {
        FleetNode me = self.get();
        String key = FleetKeys.node(me.name());
        try {
            redis.call(j -> {
                j.hset(key, Map.of("version", me.version(), "config_hash", me.configHash(),
                        "last_reload", me.lastReload().toString(), "started_at", me.startedAt().toString(),
                        "seen_at", Instant.now().toString()));
                return j.pexpire(key, TTL.toMillis());
            });
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "no heartbeat written: {0}", e.toString());
        }
    }

    /** The names of the nodes whose heartbeat is current (this one's among them once it has written its own). */
    Set<String> names() throws IOException {
        Set<String> names = new HashSet<>();
        for (String key : storage.scan(FleetKeys.NODE_PREFIX + "*")) {
            names.add(key.substring(FleetKeys.NODE_PREFIX.length()));
        }
        return names;
    }

    /** The nodes whose heartbeat is current, by name. */
    List<FleetNode> nodes() throws IOException {
        List<FleetNode> nodes = new ArrayList<>();
        for (String name : names()) {
            Map<String, String> h = redis.call(j -> j.hgetAll(FleetKeys.node(name)));
            if (h.isEmpty()) {
                continue; // expired between the scan and the read
            }
            nodes.add(new FleetNode(name, h.getOrDefault("version", "?"),
                    h.getOrDefault("config_hash", ""), instant(h.get("last_reload")), instant(h.get("started_at")),
                    instant(h.get("seen_at"))));
        }
        nodes.sort(Comparator.comparing(FleetNode::name));
        return nodes;
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }
}
