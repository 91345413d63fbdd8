package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * What a site's long form and each of its {@code paths:} read alike: the backends (with their {@code upstream_tls}),
 * the choice of what serves the requests, and the {@code timeouts:} section.
 */
final class SiteParts {
    static final String UPSTREAM = "an upstream address such as " + Upstreams.EXAMPLE;
    static final String PICK_ONE =
            "a site forwards (to:), serves a folder (root:), redirects (redirect:) or answers itself (respond:) "
                    + "\u2014 pick one";
    static final Keys TIMEOUTS = Keys.of("connect", "response", "read", "write", "websocket", "idle")
            .withAliases(Map.of("dial", "connect", "ws", "websocket", "websocket_idle", "websocket",
                    "upgrade", "websocket", "tunnel", "websocket"))
            .withMisplaced(Map.of(
                    "header", "\"header\" can only be set for all sites, under the top-level timeouts:",
                    "shutdown", "\"shutdown\" can only be set for all sites, under the top-level timeouts:"));

    private final NodeWalker walker;
    private final Values values;
    private final UpstreamTlsReader upstreamTls;
    private final java.nio.file.Path baseDir;

    SiteParts(NodeWalker walker, Values values, java.nio.file.Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.upstreamTls = new UpstreamTlsReader(walker, values, baseDir);
        this.baseDir = baseDir;
    }

    /** Where relative paths (a root, page files) start: the config file's folder. */
    java.nio.file.Path baseDir() {
        return baseDir;
    }

    /** The fields of {@code to}, {@code root}, {@code redirect} and {@code respond} that are there, in file order. */
    static List<Field> actions(Map<String, Field> fields) {
        return Stream.of("to", "root", "redirect", "respond").map(fields::get).filter(Objects::nonNull)
                .sorted(Comparator.comparingInt((Field f) -> ErrorList.line(f.keyNode()))
                        .thenComparingInt(f -> ErrorList.column(f.keyNode())))
                .toList();
    }

    /** Reports every action after the first; true when there was at most one. */
    boolean atMostOneAction(List<Field> actions) {
        for (Field extra : actions.subList(Math.min(1, actions.size()), actions.size())) {
            walker.error(extra.keyNode(), extra.path(), PICK_ONE);
        }
        return actions.size() <= 1;
    }

    /** The {@code timeouts:} section's fields, or none. */
    Map<String, Field> timeouts(Field section) {
        return Optional.ofNullable(section).filter(f -> !NodeWalker.isNull(f.value()))
                .map(f -> walker.fields(f.value(), f.path(), "a mapping of timeouts ("
                        + String.join(", ", TIMEOUTS.allowed()) + ")", TIMEOUTS))
                .orElse(Map.of());
    }

    Duration duration(Map<String, Field> fields, String key, Duration fallback) {
        return Optional.ofNullable(fields.get(key)).flatMap(values::duration).orElse(fallback);
    }

    /** {@code upstream_tls:} over {@code base}, or {@code base} when the field is absent; nothing when wrong. */
    Optional<UpstreamTls> upstreamTls(Field field, UpstreamTls base) {
        return field == null ? Optional.of(base) : upstreamTls.read(field, base);
    }

    /**
     * The backends of {@code to} (one address, or a list of them), each https:// one with {@code tls}; nothing if
     * any is wrong.
     */
    Optional<List<UpstreamAddress>> upstreams(Field to, UpstreamTls tls) {
        if (NodeWalker.isNull(to.value())) {
            walker.typeError(to.value(), to.path(), "an upstream address or a list of them");
            return Optional.empty();
        }
        return upstreams(to.value(), to.path(), "an upstream address or a list of them", tls);
    }

    /** One upstream or a list of them; nothing if any is wrong. */
    Optional<List<UpstreamAddress>> upstreams(Node node, YamlPath path, String expected, UpstreamTls tls) {
        if (node instanceof SequenceNode list) {
            if (list.getValue().isEmpty()) {
                walker.error(node, path, "the list of upstreams is empty; give at least one, as in ["
                        + Upstreams.EXAMPLE + "]");
                return Optional.empty();
            }
            List<UpstreamAddress> result = new ArrayList<>();
            boolean ok = true;
            for (int i = 0; i < list.getValue().size(); i++) {
                Optional<UpstreamAddress> one = upstream(list.getValue().get(i), path.index(i), UPSTREAM, tls);
                one.ifPresent(result::add);
                ok &= one.isPresent();
            }
            return ok ? Optional.of(result) : Optional.empty();
        }
        return upstream(node, path, expected, tls).map(List::of);
    }

    private Optional<UpstreamAddress> upstream(Node node, YamlPath path, String expected, UpstreamTls tls) {
        return walker.text(node, path, expected, NodeWalker.STRING)
                .flatMap(text -> values.parse(node, path, () -> Upstreams.parse(text)))
                .map(address -> address.scheme() == UpstreamScheme.HTTPS ? address.withTls(tls) : address);
    }

    /** Reports {@code upstream_tls:} given where no backend is an https:// one. */
    void checkTlsApplies(Field upstreamTlsField, boolean anyHttps) {
        if (upstreamTlsField != null && !anyHttps) {
            walker.error(upstreamTlsField.keyNode(), upstreamTlsField.path(), "upstream_tls only applies to https:// "
                    + "backends; write the address as to: https://host:port");
        }
    }

    static boolean anyHttps(List<UpstreamAddress> upstreams) {
        return upstreams.stream().anyMatch(u -> u.scheme() == UpstreamScheme.HTTPS);
    }
}
