package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;

/**
 * Reads a container's {@code usher.*} labels: {@code usher.host} (names, comma-separated), {@code usher.port},
 * {@code usher.network}, and every other {@code usher.<option>} as that site option. A dot goes one level down, so
 * {@code usher.health.path=/healthz} is {@code health: {path: /healthz}}; {@code usher.health={path: /healthz}} is
 * the same written at once. Labels have no order: entries of one mapping (header edits too) come in name order.
 */
final class UsherLabels {
    static final String PREFIX = "usher.";
    static final String HOST = "usher.host";
    static final String PORT = "usher.port";
    static final String NETWORK = "usher.network";
    private static final Map<String, String> HOST_INSTEAD = Map.of("usher.hosts", HOST, "usher.domain", HOST,
            "usher.domains", HOST, "usher.hostname", HOST, "usher.name", HOST, "usher.names", HOST);
    private static final List<String> UPSTREAM_KEYS = List.of("to", "upstream", "upstreams", "backend", "backends",
            "target", "targets", "proxy");
    private static final List<String> ANSWER_KEYS = List.of("redirect", "respond");

    private UsherLabels() {
    }

    /** True when the container has any {@code usher.} label. */
    static boolean present(Map<String, String> labels) {
        return labels.keySet().stream().anyMatch(k -> k.startsWith(PREFIX));
    }

    /** What the labels ask for; nothing when they have errors (recorded). */
    static Optional<LabelRequest> read(Map<String, String> labels, ErrorList errors) {
        Map<String, String> ours = new TreeMap<>();
        labels.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) {
                ours.put(k, v);
            }
        });
        String hosts = ours.remove(HOST);
        String port = ours.remove(PORT);
        String network = ours.remove(NETWORK);
        Branch options = new Branch(PREFIX.substring(0, PREFIX.length() - 1));
        boolean ok = true;
        for (Map.Entry<String, String> label : ours.entrySet()) {
            ok &= place(label.getKey(), label.getValue(), options, errors);
        }
        if (hosts == null) {
            errors.addAtLabel(null, "has usher.* labels but no usher.host; add usher.host=NAME (several names "
                    + "comma-separated)");
            return Optional.empty();
        }
        List<LabelRequest.Name> names = new ArrayList<>();
        LabelRequest.Label portLabel = port == null ? null : new LabelRequest.Label(PORT, port);
        for (String name : hosts.split(",", -1)) {
            String text = name.strip();
            if (names.stream().anyMatch(n -> n.text().equalsIgnoreCase(text))) {
                errors.addAtLabel(HOST, "names " + text + " twice");
                ok = false;
            } else {
                names.add(new LabelRequest.Name(text, HOST, portLabel));
            }
        }
        List<NodeTuple> tuples = new ArrayList<>();
        for (Map.Entry<String, Object> option : options.children.entrySet()) {
            nodes(option.getKey(), option.getValue(), errors).ifPresent(tuples::add);
        }
        if (!ok || tuples.size() < options.children.size()) {
            return Optional.empty();
        }
        return Optional.of(new LabelRequest(names, network == null ? null
                : new LabelRequest.Label(NETWORK, network), tuples));
    }

    /** The labels under one prefix: each child is a value ({@link LabelRequest.Label}) or a deeper {@link Branch}. */
    private static final class Branch {
        final String label;
        final Map<String, Object> children = new TreeMap<>();

        Branch(String label) {
            this.label = label;
        }
    }

    /** Puts one label into the tree of options; false (recorded) when it cannot be a site option. */
    private static boolean place(String label, String value, Branch root, ErrorList errors) {
        String instead = HOST_INSTEAD.get(label);
        if (instead != null) {
            errors.addAtLabel(label, "unknown label " + label + "; did you mean " + instead + "?");
            return false;
        }
        String[] keys = label.substring(PREFIX.length()).split("\\.", -1);
        if (UPSTREAM_KEYS.contains(keys[0])) {
            errors.addAtLabel(label, "a label site forwards to its own container; usher.port picks the port when it "
                    + "exposes several");
            return false;
        }
        if (ANSWER_KEYS.contains(keys[0])) {
            errors.addAtLabel(label, "a label site forwards to its own container; a site that redirects or answers "
                    + "by itself belongs in usher.yaml");
            return false;
        }
        Branch at = root;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].isEmpty()) {
                errors.addAtLabel(label, "a label name has an empty part (two dots, or a dot at the end)");
                return false;
            }
            Object child = at.children.get(keys[i]);
            String prefix = at.label + "." + keys[i];
            if (i == keys.length - 1) {
                if (child != null) {
                    errors.addAtLabel(label, "both " + label + " and " + prefix + ".* labels are given; write the "
                            + "setting one way");
                    return false;
                }
                at.children.put(keys[i], new LabelRequest.Label(label, value));
            } else if (child instanceof LabelRequest.Label whole) {
                errors.addAtLabel(label, "both " + whole.name() + " and " + prefix + ".* labels are given; write the "
                        + "setting one way");
                return false;
            } else {
                at = (Branch) at.children.computeIfAbsent(keys[i], k -> new Branch(prefix));
            }
        }
        return true;
    }

    /** The key/value nodes of one option; nothing when a value is not YAML (recorded). */
    private static Optional<NodeTuple> nodes(String key, Object child, ErrorList errors) {
        if (child instanceof LabelRequest.Label label) {
            return LabelNodes.value(label.name(), label.value(), errors)
                    .map(value -> new NodeTuple(LabelNodes.text(key, label.name()), value));
        }
        Branch branch = (Branch) child;
        List<NodeTuple> tuples = new ArrayList<>();
        boolean ok = true;
        for (Map.Entry<String, Object> entry : branch.children.entrySet()) {
            Optional<NodeTuple> one = nodes(entry.getKey(), entry.getValue(), errors);
            one.ifPresent(tuples::add);
            ok &= one.isPresent();
        }
        Node mapping = LabelNodes.mapping(tuples, branch.label);
        return ok ? Optional.of(new NodeTuple(LabelNodes.text(key, branch.label), mapping)) : Optional.empty();
    }
}
