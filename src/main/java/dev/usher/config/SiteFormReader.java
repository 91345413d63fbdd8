package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * What the admin form makes of one site's YAML value (as composed, not loaded): its kind, the form's fields, and
 * whether the form covers all of it, so that saving the form loses nothing. Used by {@link SitesLayout}.
 */
final class SiteFormReader {
    private static final Set<String> FORM_KEYS = Set.of("to", "tls", "policy", "gzip", "compress", "max_body",
            "security_headers", "health", "paths", "upstream_tls", "root", "maintenance", "wait_for_backend",
            "forward_auth");
    /** The form's keys whose value may be more than a scalar (each checked on its own). */
    private static final Set<String> STRUCTURED = Set.of("to", "health", "tls", "paths", "upstream_tls",
            "forward_auth");

    private SiteFormReader() {
    }

    /** {@code proxy}, {@code files} (a static site), {@code redirect} or {@code respond}. */
    static String kind(Node value) {
        if (value instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                switch (keyText(t)) {
                    case "redirect" -> {
                        return "redirect";
                    }
                    case "respond" -> {
                        return "respond";
                    }
                    case "root" -> {
                        return "files";
                    }
                    default -> {
                        // proxy keys, or options of any kind
                    }
                }
            }
        }
        return "proxy";
    }

    /** True when the form covers every option of the site: it can be saved from the form without loss. */
    static boolean editable(Node value) {
        if (value instanceof ScalarNode) {
            return true;
        }
        if (value instanceof SequenceNode list) {
            return list.getValue().stream().allMatch(n -> n instanceof ScalarNode);
        }
        if (!(value instanceof MappingNode map)) {
            return false;
        }
        boolean hasTo = false;
        for (NodeTuple t : map.getValue()) {
            String key = keyText(t);
            Node v = t.getValueNode();
            if (!FORM_KEYS.contains(key)) {
                return false;
            }
            hasTo |= key.equals("to") || key.equals("root");
            if (key.equals("forward_auth") && !onlyUrlAndPreset(v)
                    || key.equals("maintenance") && !(v instanceof ScalarNode m && isBoolean(m.getValue()))) {
                return false; // copy_headers, a timeout, a flag file or allowed addresses: more than the form has
            }
            if (key.equals("to") && !editable(v) || key.equals("to") && v instanceof MappingNode) {
                return false;
            }
            if (key.equals("health") && !(v instanceof MappingNode health && health.getValue().size() == 1
                    && keyText(health.getValue().get(0)).equals("path"))) {
                return false;
            }
            if (key.equals("paths") && !editablePaths(v) || key.equals("upstream_tls") && !onlySkipVerify(v)) {
                return false;
            }
            if (!STRUCTURED.contains(key) && !(v instanceof ScalarNode)) {
                return false;
            }
            if (key.equals("tls") && v instanceof MappingNode tls && !tls.getValue().stream()
                    .allMatch(f -> keyText(f).equals("cert") || keyText(f).equals("key"))) {
                return false; // DNS-01 settings or a shared wildcard: more than the form's certificate files
            }
        }
        return hasTo;
    }

    /** Paths the form covers: each a pattern to one upstream, written short or as {@code {to, strip_prefix}}. */
    private static boolean editablePaths(Node value) {
        if (!(value instanceof MappingNode map)) {
            return false;
        }
        for (NodeTuple t : map.getValue()) {
            Node v = t.getValueNode();
            if (v instanceof ScalarNode s) {
                if (NodeWalker.isNull(s)) {
                    return false;
                }
                continue;
            }
            if (!(v instanceof MappingNode options)) {
                return false;
            }
            boolean hasTo = false;
            for (NodeTuple o : options.getValue()) {
                String key = keyText(o);
                if (!(o.getValueNode() instanceof ScalarNode) || !key.equals("to") && !key.equals("strip_prefix")) {
                    return false;
                }
                hasTo |= key.equals("to");
            }
            if (!hasTo) {
                return false;
            }
        }
        return true;
    }

    /** {@code forward_auth: {url: ..., preset: ...}} (a preset optional), or the short {@code forward_auth: URL}. */
    private static boolean onlyUrlAndPreset(Node value) {
        if (value instanceof ScalarNode s) {
            return !NodeWalker.isNull(s);
        }
        return value instanceof MappingNode map && map.getValue().stream().allMatch(t -> t.getValueNode()
                instanceof ScalarNode && (keyText(t).equals("url") || keyText(t).equals("preset")))
                && map.getValue().stream().anyMatch(t -> keyText(t).equals("url"));
    }

    private static boolean isBoolean(String text) {
        return text.equals("true") || text.equals("false");
    }

    /** {@code upstream_tls: {insecure_skip_verify: ...}} and nothing else: the one TLS option the form has. */
    private static boolean onlySkipVerify(Node value) {
        return value instanceof MappingNode map && map.getValue().size() == 1
                && keyText(map.getValue().get(0)).equals("insecure_skip_verify")
                && map.getValue().get(0).getValueNode() instanceof ScalarNode;
    }

    /**
     * True when the value and its keys are written within the site's own lines: not an alias of, or merged
     * ({@code <<: *base}) from, another place in the file, which the form would silently flatten.
     */
    static boolean writtenWithin(Node value, int first, int last) {
        int line = SitesLayout.line(value.getStartMark());
        if (line < first || line > last) {
            return false;
        }
        if (value instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                int keyLine = SitesLayout.line(t.getKeyNode().getStartMark());
                if (keyLine < first || keyLine > last || !writtenWithin(t.getValueNode(), first, last)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static String keyText(NodeTuple t) {
        return t.getKeyNode() instanceof ScalarNode s ? s.getValue() : "";
    }

    /** The form's view of a site's value (the parts it covers). */
    static SiteForm form(String name, String rawKey, Node value) {
        boolean plain = rawKey.strip().toLowerCase(Locale.ROOT).startsWith("http://");
        if (!(value instanceof MappingNode map)) {
            return new SiteForm(name, upstreams(value), plain ? "off" : null, null, null, null, null, null, null,
                    null);
        }
        List<String> ups = List.of();
        String tls = plain ? "off" : null;
        String cert = null;
        String key = null;
        String policy = null;
        Boolean gzip = null;
        String maxBody = null;
        Boolean security = null;
        String health = null;
        List<SiteForm.Path> paths = List.of();
        Boolean skipVerify = null;
        String root = null;
        Boolean maintenance = null;
        String wait = null;
        String authUrl = null;
        String authPreset = null;
        for (NodeTuple t : map.getValue()) {
            Node v = t.getValueNode();
            String text = v instanceof ScalarNode s ? s.getValue() : null;
            switch (keyText(t)) {
                case "to" -> ups = upstreams(v);
                case "tls" -> {
                    if (v instanceof MappingNode files && files.getValue().stream()
                            .noneMatch(f -> keyText(f).equals("cert") || keyText(f).equals("key"))) {
                        tls = files.getValue().stream().anyMatch(f -> keyText(f).equals("dns")) ? "acme" : "auto";
                    } else if (v instanceof MappingNode files) {
                        tls = "files";
                        for (NodeTuple f : files.getValue()) {
                            String fileText = f.getValueNode() instanceof ScalarNode s ? s.getValue() : null;
                            if (keyText(f).equals("cert")) {
                                cert = fileText;
                            } else if (keyText(f).equals("key")) {
                                key = fileText;
                            }
                        }
                    } else if (text != null) {
                        tls = text.equals("true") ? "auto" : text.equals("false") ? "off"
                                : text.toLowerCase(Locale.ROOT);
                    }
                }
                case "policy" -> policy = text;
                case "gzip", "compress" -> gzip = text == null ? null : !text.equals("false");
                case "max_body" -> maxBody = text;
                case "security_headers" -> security = text == null ? null : text.equals("true");
                case "health" -> {
                    if (v instanceof MappingNode h) {
                        for (NodeTuple f : h.getValue()) {
                            if (keyText(f).equals("path") && f.getValueNode() instanceof ScalarNode s) {
                                health = s.getValue();
                            }
                        }
                    }
                }
                case "paths" -> paths = paths(v);
                case "upstream_tls" -> {
                    if (onlySkipVerify(v)) {
                        skipVerify = ((ScalarNode) ((MappingNode) v).getValue().get(0).getValueNode()).getValue()
                                .equals("true");
                    }
                }
                case "root" -> root = text;
                case "maintenance" -> maintenance = text == null ? null : text.equals("true");
                case "wait_for_backend" -> wait = text;
                case "forward_auth" -> {
                    if (text != null) {
                        authUrl = text;
                    } else if (v instanceof MappingNode auth) {
                        for (NodeTuple f : auth.getValue()) {
                            String option = f.getValueNode() instanceof ScalarNode s ? s.getValue() : null;
                            if (keyText(f).equals("url")) {
                                authUrl = option;
                            } else if (keyText(f).equals("preset")) {
                                authPreset = option;
                            }
                        }
                    }
                }
                default -> {
                    // not covered by the form: the site is shown read-only (see editable)
                }
            }
        }
        return new SiteForm(name, ups, tls, cert, key, policy, gzip, maxBody, security, health, paths,
                skipVerify, new SiteForm.SelfHosting(root, maintenance, wait, authUrl, authPreset));
    }

    private static List<SiteForm.Path> paths(Node value) {
        if (!(value instanceof MappingNode map)) {
            return List.of();
        }
        List<SiteForm.Path> paths = new ArrayList<>();
        for (NodeTuple t : map.getValue()) {
            String upstream = null;
            boolean strip = false;
            if (t.getValueNode() instanceof ScalarNode s) {
                upstream = s.getValue();
            } else if (t.getValueNode() instanceof MappingNode options) {
                for (NodeTuple o : options.getValue()) {
                    String text = o.getValueNode() instanceof ScalarNode s ? s.getValue() : null;
                    if (keyText(o).equals("to")) {
                        upstream = text;
                    } else if (keyText(o).equals("strip_prefix")) {
                        strip = "true".equals(text);
                    }
                }
            }
            paths.add(new SiteForm.Path(keyText(t), upstream == null ? "" : upstream, strip));
        }
        return paths;
    }

    private static List<String> upstreams(Node value) {
        if (value instanceof ScalarNode s) {
            return NodeWalker.isNull(s) ? List.of() : List.of(s.getValue());
        }
        if (value instanceof SequenceNode list) {
            return list.getValue().stream().filter(n -> n instanceof ScalarNode)
                    .map(n -> ((ScalarNode) n).getValue()).toList();
        }
        return List.of();
    }
}
