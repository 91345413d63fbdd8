package dev.usher.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the common subset of Traefik's Docker labels, so that a Traefik stack moves over unchanged:
 * {@code traefik.enable}, {@code traefik.http.routers.<r>.rule} ({@code Host(`a`)}, several joined by {@code ||}),
 * {@code traefik.http.routers.<r>.tls}, {@code traefik.http.services.<s>.loadbalancer.server.port} and
 * {@code traefik.docker.network}. A router with TLS (or a certificate resolver) is an HTTPS site, one without is a
 * plain-HTTP site, as in Traefik. Labels that only say what Usher does anyway (entry points, certificate resolvers,
 * middleware definitions no kept router uses) are noted and ignored; any other label would change what is served if
 * ignored, so it is an error naming it, and the container is skipped.
 */
final class TraefikLabels {
    static final String PREFIX = "traefik.";
    static final String ENABLE = "traefik.enable";
    static final String NETWORK = "traefik.docker.network";
    private static final Pattern ROUTER = Pattern.compile("traefik\\.http\\.routers\\.([^.]+)\\.(.+)");
    private static final Pattern SERVICE = Pattern.compile("traefik\\.http\\.services\\.([^.]+)\\.(.+)");
    private static final String PORT = "loadbalancer.server.port";
    /** Router settings that Usher does by itself, noted and ignored. */
    private static final Set<String> ROUTER_NOTED = Set.of("entrypoints", "tls.certresolver", "priority");
    /** One {@code Host(...)} matcher with its quoted names. */
    private static final Pattern HOST = Pattern.compile("\\s*Host\\(\\s*([^)]*?)\\s*\\)\\s*");
    private static final Pattern QUOTED = Pattern.compile("`([^`]*)`|\"([^\"]*)\"");

    private TraefikLabels() {
    }

    /** True when the container asks Traefik to route it: {@code traefik.enable=true}, or a router rule without
     * {@code traefik.enable=false}. */
    static boolean present(Map<String, String> labels) {
        String enable = labels.get(ENABLE);
        if (enable != null && enable.strip().equalsIgnoreCase("false")) {
            return false;
        }
        return enable != null || labels.keySet().stream().anyMatch(k -> ROUTER.matcher(k).matches()
                && k.endsWith(".rule"));
    }

    /** What the labels ask for; nothing when they have errors (recorded). {@code notes} gets what was ignored. */
    static Optional<LabelRequest> read(Map<String, String> labels, ErrorList errors, List<String> notes) {
        Map<String, Map<String, String>> routers = new TreeMap<>();
        Map<String, Map<String, String>> services = new TreeMap<>();
        LabelRequest.Label network = null;
        Set<String> middlewareDefinitions = new TreeSet<>();
        boolean ok = true;
        for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
            String key = label.getKey();
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            Matcher router = ROUTER.matcher(key);
            Matcher service = SERVICE.matcher(key);
            if (key.equals(ENABLE)) {
                String value = label.getValue().strip();
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    errors.addAtLabel(key, "expected true or false, found \"" + label.getValue() + "\"");
                    ok = false;
                }
            } else if (key.equals(NETWORK)) {
                network = new LabelRequest.Label(key, label.getValue().strip());
            } else if (router.matches()) {
                routers.computeIfAbsent(router.group(1), r -> new LinkedHashMap<>()).put(router.group(2),
                        label.getValue());
            } else if (service.matches()) {
                services.computeIfAbsent(service.group(1), s -> new LinkedHashMap<>()).put(service.group(2),
                        label.getValue());
            } else if (key.startsWith("traefik.http.middlewares.")) {
                middlewareDefinitions.add(key);
            } else {
                errors.addAtLabel(key, "not supported: Usher reads traefik.enable, traefik.http.routers.<r>.rule "
                        + "and .tls, traefik.http.services.<s>.loadbalancer.server.port and traefik.docker.network");
                ok = false;
            }
        }
        Map<String, LabelRequest.Label> ports = new TreeMap<>();
        for (Map.Entry<String, Map<String, String>> service : services.entrySet()) {
            ok &= service(service.getKey(), service.getValue(), ports, errors, notes);
        }
        Map<String, LabelRequest.Name> names = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> router : routers.entrySet()) {
            ok &= router(router.getKey(), router.getValue(), ports, names, errors, notes);
        }
        if (!middlewareDefinitions.isEmpty()) {
            notes.add("ignored " + String.join(", ", middlewareDefinitions) + " (middleware definitions; no router "
                    + "Usher serves uses them)");
        }
        if (ok && names.isEmpty()) {
            errors.addAtLabel(null, "has traefik labels but no router with a rule: add traefik.http.routers.<name>"
                    + ".rule=Host(`app.example.com`)");
            return Optional.empty();
        }
        return ok ? Optional.of(new LabelRequest(List.copyOf(names.values()), network, List.of())) : Optional.empty();
    }

    private static boolean service(String name, Map<String, String> settings, Map<String, LabelRequest.Label> ports,
                                   ErrorList errors, List<String> notes) {
        boolean ok = true;
        String prefix = "traefik.http.services." + name + ".";
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            String label = prefix + setting.getKey();
            String value = setting.getValue().strip();
            if (setting.getKey().equals(PORT)) {
                ports.put(name, new LabelRequest.Label(label, value));
            } else if (setting.getKey().equals("loadbalancer.server.scheme") && value.equalsIgnoreCase("http")
                    || setting.getKey().equals("loadbalancer.passhostheader") && value.equalsIgnoreCase("true")) {
                notes.add("ignored " + label + "=" + value + " (what Usher does anyway)");
            } else {
                errors.addAtLabel(label, "not supported: of a service Usher reads only loadbalancer.server.port");
                ok = false;
            }
        }
        return ok;
    }

    /** Adds the names of one router to {@code names}; false (recorded) when it has errors. */
    private static boolean router(String router, Map<String, String> settings, Map<String, LabelRequest.Label> ports,
                                  Map<String, LabelRequest.Name> names, ErrorList errors, List<String> notes) {
        String prefix = "traefik.http.routers." + router + ".";
        boolean ok = true;
        boolean tls = false;
        for (Map.Entry<String, String> setting : settings.entrySet()) {
            String key = setting.getKey();
            String value = setting.getValue().strip();
            if (key.equals("rule") || key.equals("service")) {
                continue;
            }
            if (key.equals("tls")) {
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    errors.addAtLabel(prefix + key, "expected true or false, found \"" + setting.getValue() + "\"");
                    ok = false;
                }
                tls |= value.equalsIgnoreCase("true");
            } else if (ROUTER_NOTED.contains(key)) {
                tls |= key.equals("tls.certresolver");
                notes.add("ignored " + prefix + key + "=" + value + (key.equals("tls.certresolver")
                        ? " (Usher gets the certificate itself)" : " (Usher serves on its own ports)"));
            } else {
                errors.addAtLabel(prefix + key, "not supported: of a router Usher reads rule, tls and service"
                        + (key.equals("middlewares") ? " (a middleware left out would change what is served: "
                        + "put the site in usher.yaml with the matching options)" : ""));
                ok = false;
            }
        }
        String ruleLabel = prefix + "rule";
        String rule = settings.get("rule");
        if (rule == null) {
            errors.addAtLabel(null, "router " + router + " has no rule: add " + ruleLabel + "=Host(`app.example.com`)");
            return false;
        }
        Optional<List<String>> hosts = hosts(rule);
        if (hosts.isEmpty()) {
            errors.addAtLabel(ruleLabel, "the rule " + rule + " is not supported: Usher reads Host(`name`) matchers "
                    + "joined by ||, nothing else (paths, headers, && and ! are not supported)");
            return false;
        }
        Optional<LabelRequest.Label> port = port(router, settings.get("service"), ports, errors);
        if (!ok || port == null) {
            return false;
        }
        for (String host : hosts.get()) {
            String key = host.toLowerCase(java.util.Locale.ROOT);
            LabelRequest.Name name = new LabelRequest.Name(tls ? host : "http://" + host, ruleLabel,
                    port.orElse(null));
            LabelRequest.Name before = names.get(key);
            if (before == null || tls && before.text().startsWith("http://")) {
                if (before != null) {
                    notes.add("serving " + host + " over HTTPS (router " + router + "); the plain-HTTP router of "
                            + before.label() + " is left out: Usher redirects plain HTTP to HTTPS itself");
                }
                names.put(key, name);
            } else if (!tls && !before.text().startsWith("http://")) {
                notes.add("left out the plain-HTTP router of " + ruleLabel + " for " + host + ": it is served over "
                        + "HTTPS (" + before.label() + "), and Usher redirects plain HTTP to HTTPS itself");
            }
        }
        return true;
    }

    /**
     * The port label for a router: its {@code service}'s, else the one service's; empty for the container's exposed
     * port; null (recorded) when it cannot be told.
     */
    private static Optional<LabelRequest.Label> port(String router, String service,
                                                     Map<String, LabelRequest.Label> ports, ErrorList errors) {
        if (service != null) {
            LabelRequest.Label port = ports.get(service.strip());
            if (port == null) {
                errors.addAtLabel("traefik.http.routers." + router + ".service", "no service " + service.strip()
                        + " with a loadbalancer.server.port label on this container");
                return null;
            }
            return Optional.of(port);
        }
        if (ports.size() > 1) {
            errors.addAtLabel(null, "router " + router + " could be served by any of the services " + String.join(
                    ", ", ports.keySet()) + "; name one with traefik.http.routers." + router + ".service");
            return null;
        }
        return ports.values().stream().findFirst();
    }

    /** The names of a rule made only of {@code Host(...)} matchers joined by {@code ||}; empty otherwise. */
    static Optional<List<String>> hosts(String rule) {
        List<String> names = new ArrayList<>();
        for (String part : rule.split("\\|\\|", -1)) {
            Matcher host = HOST.matcher(part);
            if (!host.matches()) {
                return Optional.empty();
            }
            String args = host.group(1);
            Matcher quoted = QUOTED.matcher(args);
            int at = 0;
            while (quoted.find()) {
                String between = args.substring(at, quoted.start()).strip();
                if (!between.isEmpty() && !between.equals(",")) {
                    return Optional.empty();
                }
                names.add(quoted.group(1) != null ? quoted.group(1) : quoted.group(2));
                at = quoted.end();
            }
            if (at == 0 || !args.substring(at).isBlank()) {
                return Optional.empty();
            }
        }
        return Optional.of(names);
    }
}
