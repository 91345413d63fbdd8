package dev.usher.docker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Reads the answers of {@code GET /containers/json} and {@code GET /containers/{id}/json}: what discovery needs of
 * each running container that has Usher's or Traefik's labels. Docker and podman differ here and there (podman puts
 * the network's name in {@code NetworkID}, lists only published ports); only the fields both fill are read: the
 * network names are the keys of {@code NetworkSettings.Networks}, exposed ports come from the inspection.
 */
final class ContainerList {
    /** One listed container that asks to be routed. */
    record Listed(String id, String name, Map<String, String> labels, Map<String, String> networks, boolean ready) {
    }

    private ContainerList() {
    }

    /** True when a container's labels ask for a route: any {@code usher.} or {@code traefik.} label. */
    static boolean wantsRoute(Map<String, String> labels) {
        return labels.keySet().stream().anyMatch(k -> k.startsWith("usher.") || k.startsWith("traefik."));
    }

    /** The running containers in a list answer that ask for a route. */
    static List<Listed> parse(Object answer) {
        if (!(answer instanceof List<?> entries)) {
            throw new IllegalArgumentException("the container list is not a JSON array");
        }
        List<Listed> listed = new ArrayList<>();
        for (Object entry : entries) {
            if (!(entry instanceof Map<?, ?> container)) {
                continue;
            }
            Map<String, String> labels = strings(container.get("Labels"));
            if (!wantsRoute(labels) || !"running".equals(container.get("State"))) {
                continue;
            }
            String id = container.get("Id") instanceof String s ? s : "";
            listed.add(new Listed(id, name(container, id), labels, networks(container), ready(container)));
        }
        return listed;
    }

    /** The TCP ports an inspected container exposes ({@code Config.ExposedPorts}: {@code "80/tcp": {}}). */
    static List<Integer> exposedPorts(Object inspection) {
        TreeSet<Integer> ports = new TreeSet<>();
        if (inspection instanceof Map<?, ?> container && container.get("Config") instanceof Map<?, ?> config
                && config.get("ExposedPorts") instanceof Map<?, ?> exposed) {
            for (Object key : exposed.keySet()) {
                String text = String.valueOf(key);
                int slash = text.indexOf('/');
                String protocol = slash < 0 ? "tcp" : text.substring(slash + 1);
                try {
                    int port = Integer.parseInt(slash < 0 ? text : text.substring(0, slash));
                    if (protocol.equals("tcp") && port > 0 && port < 65536) {
                        ports.add(port);
                    }
                } catch (NumberFormatException e) {
                    // not a port: skipped
                }
            }
        }
        return List.copyOf(ports);
    }

    /** Docker's first name without its slash ({@code /web-1} → {@code web-1}), or the short ID. */
    private static String name(Map<?, ?> container, String id) {
        if (container.get("Names") instanceof List<?> names && !names.isEmpty() && names.get(0) instanceof String n) {
            return n.startsWith("/") ? n.substring(1) : n;
        }
        return id.length() > 12 ? id.substring(0, 12) : id;
    }

    /** Network name → the container's address there (IPv4, else IPv6, else empty). */
    private static Map<String, String> networks(Map<?, ?> container) {
        Map<String, String> networks = new LinkedHashMap<>();
        if (container.get("NetworkSettings") instanceof Map<?, ?> settings
                && settings.get("Networks") instanceof Map<?, ?> all) {
            all.forEach((name, value) -> {
                String address = "";
                if (value instanceof Map<?, ?> network) {
                    address = text(network.get("IPAddress"));
                    if (address.isEmpty()) {
                        address = text(network.get("GlobalIPv6Address"));
                    }
                }
                networks.put(String.valueOf(name), address);
            });
        }
        return networks;
    }

    /**
     * False while a container with a health check is not healthy (starting or unhealthy): as with Traefik, it gets
     * no requests until its check passes. From {@code Health.Status} where the API gives it, else from the status
     * text ({@code Up 5 minutes (health: starting)}).
     */
    private static boolean ready(Map<?, ?> container) {
        if (container.get("Health") instanceof Map<?, ?> health && health.get("Status") instanceof String status
                && !status.isEmpty() && !status.equals("none")) {
            return status.equals("healthy");
        }
        String status = text(container.get("Status"));
        return !status.contains("(unhealthy)") && !status.contains("(health: starting)");
    }

    private static Map<String, String> strings(Object value) {
        Map<String, String> out = new LinkedHashMap<>();
        if (value instanceof Map<?, ?> map) {
            map.forEach((k, v) -> {
                if (v instanceof String s) {
                    out.put(String.valueOf(k), s);
                }
            });
        }
        return out;
    }

    private static String text(Object value) {
        return value instanceof String s ? s : "";
    }
}
