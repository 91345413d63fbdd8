package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads the sites one container announces: its {@code usher.*} labels (or else its Traefik labels) become the node
 * tree of a {@code sites:} section, with the container's address on the chosen network as each site's {@code to},
 * and {@link SitesReader} reads that tree exactly as it reads the file, under the file's global settings.
 */
final class ContainerLabels {
    /** The sites of one container and the network they reach it on. */
    record Announced(List<Site> sites, String network) {
    }

    private final UsherConfig file;
    private final Path baseDir;

    /** {@code file}: the config from usher.yaml, whose defaults (timeouts, limits, HTTPS on or off) apply. */
    ContainerLabels(UsherConfig file, Path baseDir) {
        this.file = file;
        this.baseDir = baseDir;
    }

    /**
     * The sites of {@code container}: empty when it asks for none; nothing when its labels have errors (recorded in
     * {@code errors}; the container is then skipped as a whole). {@code notes} gets labels that were ignored.
     */
    Optional<Announced> read(DiscoveredContainer container, ErrorList errors, List<String> notes) {
        Map<String, String> labels = container.labels();
        Optional<LabelRequest> request;
        if (UsherLabels.present(labels)) {
            if (TraefikLabels.present(labels)) {
                notes.add("container " + container.name() + ": its traefik.* labels are ignored, the usher.* ones "
                        + "apply");
            }
            request = UsherLabels.read(labels, errors);
        } else if (TraefikLabels.present(labels)) {
            List<String> ignored = new ArrayList<>();
            request = TraefikLabels.read(labels, errors, ignored);
            ignored.forEach(note -> notes.add("container " + container.name() + ": " + note));
        } else {
            return Optional.of(new Announced(List.of(), null));
        }
        if (request.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> network = network(container, request.get().network(), errors);
        if (network.isEmpty()) {
            return Optional.empty();
        }
        String address = container.networks().get(network.get());
        List<NodeTuple> sites = new ArrayList<>();
        for (LabelRequest.Name name : request.get().names()) {
            Optional<String> port = port(container, name, errors);
            if (port.isEmpty()) {
                return Optional.empty();
            }
            String label = name.port() == null ? name.label() : name.port().name();
            String upstream = (address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + port.get();
            List<NodeTuple> settings = new ArrayList<>();
            settings.add(new NodeTuple(LabelNodes.text("to", label), LabelNodes.text(upstream, label)));
            settings.addAll(request.get().options());
            sites.add(new NodeTuple(LabelNodes.text(name.text(), name.label()),
                    LabelNodes.mapping(settings, name.label())));
        }
        NodeWalker walker = new NodeWalker(errors);
        MappingNode tree = LabelNodes.mapping(sites, UsherLabels.HOST);
        ScalarNode key = LabelNodes.text("sites", UsherLabels.HOST);
        List<Site> read = new SitesReader(walker, new Values(walker), baseDir, file.listen().httpsOn(), null,
                file.acme().answersDns01())
                .read(new Field("sites", key, tree, YamlPath.ROOT.key("sites")), file.timeouts(), file.limits(),
                        file.accessLog().on(), file.errorPages());
        return errors.isEmpty() ? Optional.of(new Announced(read, network.get())) : Optional.empty();
    }

    /**
     * The network to reach the container on: the one its label names, else {@code docker.network}, else its only
     * one. Nothing (recorded) when that network is not one of its own or it has no address there.
     */
    private Optional<String> network(DiscoveredContainer container, LabelRequest.Label label, ErrorList errors) {
        Map<String, String> networks = container.networks();
        String wanted = label != null ? label.value() : file.docker().network();
        String on = networks.isEmpty() ? "no network" : "the network(s) " + String.join(", ", networks.keySet());
        if (wanted == null && networks.size() != 1) {
            errors.addAtLabel(null, networks.isEmpty() ? "is on no network Usher can reach it on"
                    : "is on several networks (" + String.join(", ", networks.keySet()) + "); say which Usher "
                    + "reaches it on with docker.network in usher.yaml or the usher.network label");
            return Optional.empty();
        }
        String network = wanted != null ? wanted : networks.keySet().iterator().next();
        if (!networks.containsKey(network)) {
            errors.addAtLabel(label == null ? null : label.name(), "is not on the network " + network
                    + (label == null ? " (docker.network in usher.yaml)" : "") + "; it is on " + on);
            return Optional.empty();
        }
        if (networks.get(network).isEmpty()) {
            errors.addAtLabel(label == null ? null : label.name(), "has no address on the network " + network
                    + " (with network_mode: host, route it from usher.yaml instead)");
            return Optional.empty();
        }
        return Optional.of(network);
    }

    /** The port of {@code name}: its port label's, else the container's one exposed port. */
    private static Optional<String> port(DiscoveredContainer container, LabelRequest.Name name, ErrorList errors) {
        if (name.port() != null) {
            String text = name.port().value().strip();
            if (!text.matches("[0-9]{1,5}") || Integer.parseInt(text) < 1 || Integer.parseInt(text) > 65535) {
                errors.addAtLabel(name.port().name(), "expected a port number from 1 to 65535, found \""
                        + name.port().value() + "\"");
                return Optional.empty();
            }
            return Optional.of(String.valueOf(Integer.parseInt(text)));
        }
        List<Integer> exposed = container.exposedPorts();
        if (exposed.size() == 1) {
            return Optional.of(String.valueOf(exposed.get(0)));
        }
        String how = name.label().startsWith(TraefikLabels.PREFIX)
                ? "traefik.http.services.<name>.loadbalancer.server.port=PORT" : UsherLabels.PORT + "=PORT";
        errors.addAtLabel(null, exposed.isEmpty() ? "exposes no port; add " + how
                : "exposes several ports (" + String.join(", ", exposed.stream().map(String::valueOf).toList())
                + "); add " + how + " to pick one");
        return Optional.empty();
    }
}
