package dev.usher.migrate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Traefik labels of a compose file's services, merged into one dynamic configuration: a label
 * {@code traefik.http.routers.web.rule=Host(`a`)} is {@code http.routers.web.rule} of the dynamic file. Each
 * container's service gets the container as its server, {@code http://SERVICE:PORT} with the port of
 * {@code traefik.http.services.S.loadbalancer.server.port} or the one port the service exposes; a container with
 * routers but no service label gets one named after it, as Traefik's Docker provider does. Label names are Traefik's
 * own, so this is the vocabulary Usher's Docker label discovery reads too.
 */
final class TraefikLabels {
    private TraefikLabels() {
    }

    /** The dynamic configuration the compose file's labels make. */
    static Map<String, Object> dynamic(Object compose, String file, Conversion.Builder out) {
        Map<String, Object> root = new LinkedHashMap<>();
        Tree.map(compose, "services").forEach((service, def) -> container(service, def, file, root, out));
        return root;
    }

    private static void container(String service, Object def, String file, Map<String, Object> root,
                                  Conversion.Builder out) {
        Map<String, String> labels = labels(Tree.get(def, "labels"));
        if (labels.keySet().stream().noneMatch(k -> k.toLowerCase(Locale.ROOT).startsWith("traefik."))) {
            return;
        }
        Origin origin = new Origin(TraefikImport.FORMAT, file, "service " + service);
        if ("false".equalsIgnoreCase(labels.getOrDefault("traefik.enable", "true"))) {
            return;
        }
        Map<String, Object> mine = new LinkedHashMap<>();
        List<String> serviceNames = new ArrayList<>();
        for (Map.Entry<String, String> label : labels.entrySet()) {
            String key = label.getKey();
            String lower = key.toLowerCase(Locale.ROOT);
            if (!lower.startsWith("traefik.") || lower.equals("traefik.enable")) {
                continue;
            }
            if (lower.startsWith("traefik.http.") || lower.startsWith("traefik.tcp.")
                    || lower.startsWith("traefik.udp.")) {
                String[] path = key.substring("traefik.".length()).split("\\.");
                if (path.length >= 3 && path[0].equalsIgnoreCase("http") && path[1].equalsIgnoreCase("services")
                        && !serviceNames.contains(path[2])) {
                    serviceNames.add(path[2]);
                }
                put(mine, path, label.getValue());
            } else if (lower.equals("traefik.docker.network")) {
                out.changed(origin, key + "=" + label.getValue(), "Usher reaches the container by its compose "
                        + "service name (" + service + "); run Usher on that network");
            } else {
                out.notConverted(origin, key + "=" + label.getValue(), "not a label usher import reads");
            }
        }
        Object http = Tree.get(mine, "http");
        if (serviceNames.isEmpty() && Tree.get(http, "routers") != null) {
            serviceNames.add(service);
        }
        for (String name : serviceNames) {
            Object lb = Tree.at(http, "services", name, "loadBalancer");
            String port = Tree.string(Tree.get(lb, "server"), "port");
            String scheme = Tree.string(Tree.get(lb, "server"), "scheme");
            if (port == null) {
                port = onlyPort(def);
            }
            if (port == null) {
                port = "80";
                out.changed(origin, "service " + name, "no loadbalancer.server.port label and not exactly one port in "
                        + "the compose file: port 80 assumed (Traefik takes the image's one exposed port)");
            }
            Map<String, Object> server = new LinkedHashMap<>();
            server.put("url", (scheme == null ? "http" : scheme) + "://" + service + ":" + port);
            Map<String, Object> target = descend(descend(descend(descend(root, "http"), "services"), name),
                    "loadBalancer");
            @SuppressWarnings("unchecked")
            List<Object> servers = (List<Object>) target.computeIfAbsent("servers", k -> new ArrayList<>());
            servers.add(server);
            if (lb instanceof Map<?, ?> options) {
                options.forEach((k, v) -> {
                    if (!String.valueOf(k).equalsIgnoreCase("server")) {
                        target.putIfAbsent(String.valueOf(k), v);
                    }
                });
            }
        }
        Tree.map(http, "routers").forEach((name, router) -> {
            Map<String, Object> r = descend(descend(descend(root, "http"), "routers"), name);
            Tree.asMap(router).forEach(r::putIfAbsent);
            if (Tree.get(r, "service") == null && serviceNames.size() == 1) {
                r.put("service", serviceNames.get(0));
            }
        });
        Tree.map(http, "middlewares").forEach((name, m) -> descend(descend(root, "http"), "middlewares")
                .putIfAbsent(name, m));
        for (String other : List.of("tcp", "udp")) {
            if (Tree.get(mine, other) != null) {
                root.putIfAbsent(other, Tree.get(mine, other));
            }
        }
    }

    /**
     * The static settings on the command line of the compose file's Traefik container ({@code --certificatesresolvers
     * .R.acme.email=...}, {@code ...caserver=...}), as the static file would give them.
     */
    static void staticFlags(Object compose, Conversion.Builder out) {
        for (Object def : Tree.map(compose, "services").values()) {
            String image = Tree.string(def, "image");
            if (image == null || !image.toLowerCase(Locale.ROOT).replaceAll("^.*/", "").startsWith("traefik")) {
                continue;
            }
            for (String flag : Tree.strings(def, "command")) {
                String f = flag.strip().toLowerCase(Locale.ROOT);
                int eq = flag.indexOf('=');
                String value = eq < 0 ? "" : flag.substring(eq + 1).strip();
                if (f.startsWith("--certificatesresolvers.") && f.contains(".acme.email=")
                        && out.globals().email() == null) {
                    out.globals(out.globals().withEmail(value));
                } else if (f.startsWith("--certificatesresolvers.") && f.contains(".acme.caserver=")
                        && out.globals().acmeCa() == null) {
                    out.globals(out.globals().withAcme(value, null));
                }
            }
        }
    }

    /** Labels written as a list of {@code key=value} or as a mapping; compose's {@code $$} is one {@code $}. */
    private static Map<String, String> labels(Object labels) {
        Map<String, String> out = new LinkedHashMap<>();
        if (labels instanceof List<?> list) {
            for (Object o : list) {
                String s = String.valueOf(o);
                int eq = s.indexOf('=');
                out.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1).replace("$$", "$"));
            }
        } else if (labels instanceof Map<?, ?> map) {
            map.forEach((k, v) -> out.put(String.valueOf(k), v == null ? "" : Tree.text(v).replace("$$", "$")));
        }
        return out;
    }

    /** The service's one container port ({@code expose:} or {@code ports:}), or null. */
    private static String onlyPort(Object def) {
        List<String> ports = new ArrayList<>(Tree.strings(def, "expose"));
        for (String p : Tree.strings(def, "ports")) {
            String container = p.contains(":") ? p.substring(p.lastIndexOf(':') + 1) : p;
            ports.add(container.replaceAll("/.*", ""));
        }
        List<String> distinct = ports.stream().map(p -> p.replaceAll("/.*", "")).distinct().toList();
        return distinct.size() == 1 && distinct.get(0).matches("\\d+") ? distinct.get(0) : null;
    }

    /** Puts {@code value} at {@code path}; a scalar and a section under one key: the section wins. */
    private static void put(Map<String, Object> root, String[] path, String value) {
        Map<String, Object> node = root;
        for (int i = 0; i < path.length - 1; i++) {
            node = descend(node, path[i]);
        }
        String last = path[path.length - 1];
        if (!(node.get(last) instanceof Map)) {
            node.put(last, value);
        }
    }

    private static Map<String, Object> descend(Map<String, Object> node, String key) {
        String existing = node.keySet().stream().filter(k -> k.equalsIgnoreCase(key)).findFirst().orElse(key);
        Object v = node.get(existing);
        if (v instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> typed = (Map<String, Object>) m;
            return typed;
        }
        Map<String, Object> made = new LinkedHashMap<>();
        node.put(existing, made);
        return made;
    }
}
