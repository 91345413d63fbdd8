package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads {@code docker:}, which turns on sites from container labels: {@code docker: {socket: /var/run/docker.sock,
 * network: web}}, {@code docker: true} (the default socket, each container's only network), {@code docker:
 * /run/podman/podman.sock}, or {@code docker: false}.
 */
final class DockerReader {
    private static final Keys DOCKER = Keys.of("socket", "network")
            .withAliases(Map.of("host", "socket", "endpoint", "socket", "path", "socket", "sock", "socket",
                    "docker_host", "socket", "networks", "network", "net", "network"));
    /** Docker's rule for network names. */
    private static final Pattern NETWORK = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]*");
    private static final Set<String> OFF = Set.of("off", "none", "disabled", "no");

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;

    DockerReader(NodeWalker walker, Values values, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    /** The setting, or null when discovery is off (or the section has errors, all recorded). */
    DockerSetting read(Field field) {
        Node node = field.value();
        if (NodeWalker.isNull(node)) {
            return null;
        }
        if (node instanceof ScalarNode scalar && Tag.BOOL.equals(scalar.getTag())) {
            return Boolean.parseBoolean(scalar.getValue()) ? new DockerSetting(DockerSetting.DEFAULT_SOCKET, null)
                    : null;
        }
        if (node instanceof ScalarNode scalar && OFF.contains(scalar.getValue().strip().toLowerCase(Locale.ROOT))) {
            return null;
        }
        if (!(node instanceof MappingNode)) {
            return socket(field).map(s -> new DockerSetting(s, null)).orElse(null);
        }
        Map<String, Field> fields = walker.fields(node, field.path(),
                "a mapping such as {socket: /var/run/docker.sock, network: web}", DOCKER);
        Optional<Path> socket = fields.containsKey("socket") ? socket(fields.get("socket"))
                : Optional.of(DockerSetting.DEFAULT_SOCKET);
        Field networkField = fields.get("network");
        Optional<String> network = networkField == null ? Optional.empty() : network(networkField);
        if (socket.isEmpty() || networkField != null && network.isEmpty()) {
            return null;
        }
        return new DockerSetting(socket.get(), network.orElse(null));
    }

    private Optional<Path> socket(Field field) {
        return walker.text(field.value(), field.path(), "the path of the Docker API's unix socket, such as "
                        + "/var/run/docker.sock", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> socketPath(text.strip())));
    }

    private Path socketPath(String text) throws BadValue {
        String path = text.startsWith("unix://") ? text.substring("unix://".length()) : text;
        if (path.isEmpty()) {
            throw new BadValue("the socket path is empty; give one, such as /var/run/docker.sock");
        }
        if (path.contains("://")) {
            throw new BadValue("Usher reads the Docker API over a unix socket only, not " + text + "; to limit "
                    + "what it may ask, put a read-only socket proxy in between that listens on a unix socket");
        }
        try {
            return baseDir.resolve(Path.of(path)).normalize();
        } catch (InvalidPathException e) {
            throw new BadValue("invalid path \"" + path + "\": " + e.getReason());
        }
    }

    private Optional<String> network(Field field) {
        return walker.text(field.value(), field.path(), "a network name such as web", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    if (!NETWORK.matcher(text).matches()) {
                        throw new BadValue("\"" + text + "\" is not a Docker network name (letters, digits, and "
                                + "_ . - after the first)");
                    }
                    return text;
                }));
    }
}
