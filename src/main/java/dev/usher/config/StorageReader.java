package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code storage:} (top level): the Redis a fleet shares (an address, or a Sentinel), its password from a file
 * or the environment ({@link SecretReader}), and the key that seals private keys in it, read now from its file so
 * that {@code usher check} reports a missing or malformed key before the server starts.
 */
final class StorageReader {
    private static final Keys KEYS = Keys.of("redis", "redis_sentinel", "password", "password_file", "tls",
                    "encryption_key_file", "node", "lease")
            .withAliases(Map.ofEntries(Map.entry("url", "redis"), Map.entry("address", "redis"),
                    Map.entry("sentinel", "redis_sentinel"), Map.entry("key_file", "encryption_key_file"),
                    Map.entry("encryption_key", "encryption_key_file"), Map.entry("name", "node"),
                    Map.entry("node_name", "node"), Map.entry("lock_lease", "lease"), Map.entry("ssl", "tls")));
    private static final Keys SENTINEL = Keys.of("master", "nodes")
            .withAliases(Map.of("master_name", "master", "sentinels", "nodes", "addresses", "nodes"));
    private static final String EXAMPLE = "{redis: \"redis://10.0.0.5:6379/0\", encryption_key_file: "
            + "/etc/usher/storage.key}";
    private static final Duration MIN_LEASE = Duration.ofSeconds(2);
    private static final String KEY_ADVICE = "32 random bytes written as 64 hex digits (openssl rand -hex 32) or in "
            + "base64 (openssl rand -base64 32)";

    private final NodeWalker walker;
    private final Values values;
    private final SecretReader secrets;
    private final Path baseDir;

    StorageReader(NodeWalker walker, Values values, SecretReader secrets, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.secrets = secrets;
        this.baseDir = baseDir;
    }

    Optional<StorageSetting> read(Field section) {
        if (!(section.value() instanceof MappingNode)) {
            walker.typeError(section.value(), section.path(), "a mapping such as " + EXAMPLE);
            return Optional.empty();
        }
        int errorsBefore = walker.errorCount();
        Map<String, Field> fields = walker.fields(section.value(), section.path(), "a mapping such as " + EXAMPLE,
                KEYS);
        Field redisField = fields.get("redis");
        Field sentinelField = fields.get("redis_sentinel");
        URI redis = null;
        StorageSetting.Sentinel sentinel = null;
        if (redisField != null && sentinelField != null) {
            walker.error(sentinelField.keyNode(), sentinelField.path(), "give redis: or redis_sentinel:, not both");
        } else if (redisField != null) {
            redis = walker.text(redisField.value(), redisField.path(), "a Redis URL such as redis://10.0.0.5:6379/0",
                    NodeWalker.STRING).flatMap(t -> values.parse(redisField.value(), redisField.path(),
                    () -> redisUrl(t))).orElse(null);
        } else if (sentinelField != null) {
            sentinel = sentinel(sentinelField).orElse(null);
        } else {
            walker.error(section.keyNode(), section.path(), "missing the Redis to share: add redis: "
                    + "redis://HOST:6379/0 or redis_sentinel: {master: NAME, nodes: [HOST:26379, ...]}");
        }
        Secret password = SecretReader.given(fields, "password")
                ? secrets.read(fields, section, "password", "the Redis password").orElse(null) : null;
        boolean tls = Optional.ofNullable(fields.get("tls")).flatMap(values::bool).orElse(false)
                || redis != null && "rediss".equals(redis.getScheme());
        byte[] key = encryptionKey(fields.get("encryption_key_file"), section).orElse(null);
        String node = Optional.ofNullable(fields.get("node")).flatMap(f -> walker.text(f.value(), f.path(),
                "this instance's name in the fleet, such as web-1", NodeWalker.STRING_OR_NUMBER)
                .flatMap(t -> values.parse(f.value(), f.path(), () -> nodeName(t)))).orElseGet(StorageReader::hostName);
        Duration lease = Optional.ofNullable(fields.get("lease")).flatMap(f -> values.duration(f).filter(d -> {
            if (d.compareTo(MIN_LEASE) < 0) {
                walker.error(f.value(), f.path(), "the lease must be at least 2s (it is renewed every third of it)");
                return false;
            }
            return true;
        })).orElse(StorageSetting.DEFAULT_LEASE);
        if (walker.errorCount() != errorsBefore || redis == null && sentinel == null || key == null) {
            return Optional.empty();
        }
        return Optional.of(new StorageSetting(redis, sentinel, password, tls, key, node, lease));
    }

    private Optional<StorageSetting.Sentinel> sentinel(Field field) {
        Map<String, Field> fields = walker.fields(field.value(), field.path(),
                "a mapping such as {master: mymaster, nodes: [\"10.0.0.5:26379\", \"10.0.0.6:26379\"]}", SENTINEL);
        Field masterField = fields.get("master");
        Field nodesField = fields.get("nodes");
        if (masterField == null || nodesField == null) {
            walker.error(field.keyNode(), field.path(), "redis_sentinel: needs master: (the name Sentinel knows the "
                    + "master by) and nodes: (the Sentinels, HOST:PORT each)");
            return Optional.empty();
        }
        Optional<String> master = walker.text(masterField.value(), masterField.path(), "the master's name, such as "
                + "mymaster", NodeWalker.STRING).map(String::strip).filter(s -> !s.isEmpty());
        if (!(nodesField.value() instanceof SequenceNode list) || list.getValue().isEmpty()) {
            walker.typeError(nodesField.value(), nodesField.path(), "a list of Sentinels, such as "
                    + "[\"10.0.0.5:26379\", \"10.0.0.6:26379\"]");
            return Optional.empty();
        }
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < list.getValue().size(); i++) {
            Node item = list.getValue().get(i);
            YamlPath path = nodesField.path().index(i);
            walker.text(item, path, "a Sentinel's HOST:PORT", NodeWalker.STRING)
                    .flatMap(t -> values.parse(item, path, () -> hostPort(t))).ifPresent(nodes::add);
        }
        if (master.isEmpty() || nodes.size() != list.getValue().size()) {
            return Optional.empty();
        }
        return Optional.of(new StorageSetting.Sentinel(master.get(), nodes));
    }

    private Optional<byte[]> encryptionKey(Field field, Field section) {
        if (field == null) {
            walker.error(section.keyNode(), section.path(), "missing encryption_key_file: the key that seals private "
                    + "keys in Redis (a stolen dump must not give them away); make it once with openssl rand -hex 32 "
                    + "> /etc/usher/storage.key and give every node the same file");
            return Optional.empty();
        }
        return walker.text(field.value(), field.path(), "a file holding " + KEY_ADVICE, NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    return key(SecretReader.read(path, "the storage encryption key"), path);
                }));
    }

    static byte[] key(String text, Path path) throws BadValue {
        byte[] key;
        try {
            key = text.length() == 64 ? HexFormat.of().parseHex(text) : Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            key = new byte[0];
        }
        if (key.length != 32) {
            throw new BadValue(path + " does not hold a storage key: expected " + KEY_ADVICE);
        }
        return key;
    }

    static URI redisUrl(String text) throws BadValue {
        try {
            URI uri = new URI(text.strip());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("redis") || scheme.equals("rediss")) || uri.getHost() == null) {
                throw new BadValue("expected a Redis URL such as redis://10.0.0.5:6379/0 (rediss:// for TLS); got \""
                        + text.strip() + "\"");
            }
            if (uri.getRawUserInfo() != null && uri.getRawUserInfo().contains(":")) {
                throw new BadValue("the Redis password does not belong in usher.yaml (the admin API shows this file "
                        + "and backups keep it); put it in a file and write password_file: FILE");
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            if (!path.isEmpty() && !path.equals("/") && !path.matches("/\\d{1,2}")) {
                throw new BadValue("the path of a Redis URL is the database number (/0 to /15); got \"" + path + "\"");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new BadValue("\"" + text.strip() + "\" is not a URL: " + e.getReason());
        }
    }

    private static String hostPort(String text) throws BadValue {
        String t = text.strip();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || !t.substring(colon + 1).matches("\\d{1,5}")
                || Integer.parseInt(t.substring(colon + 1)) > 65535) {
            throw new BadValue("expected a Sentinel as HOST:PORT, such as 10.0.0.5:26379; got \"" + t + "\"");
        }
        return t;
    }

    private static String nodeName(String text) throws BadValue {
        String t = text.strip();
        if (!t.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}")) {
            throw new BadValue("a node name is up to 63 letters, digits, dots, dashes or underscores; got \"" + t
                    + "\"");
        }
        return t;
    }

    /** The machine's name, for a node that names none: what /etc/hostname says, else "usher". */
    private static String hostName() {
        try {
            String name = Files.readString(Path.of("/etc/hostname")).strip();
            return name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,62}") ? name : "usher";
        } catch (java.io.IOException e) {
            return "usher";
        }
    }
}
