package dev.usher.config;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A running container as the Docker Engine API lists it: what {@link LabelSites} reads label sites from.
 *
 * @param id           the container's ID
 * @param name         its name, without Docker's leading slash
 * @param labels       every label it has
 * @param networks     the networks it is attached to, by name, each with its address there (empty when it has
 *                     none, as with {@code network_mode: host})
 * @param exposedPorts the TCP ports its image or run exposes, ascending
 */
public record DiscoveredContainer(String id, String name, Map<String, String> labels, Map<String, String> networks,
                                  List<Integer> exposedPorts) {
    public DiscoveredContainer {
        labels = Map.copyOf(labels);
        networks = java.util.Collections.unmodifiableMap(new TreeMap<>(networks));
        exposedPorts = exposedPorts.stream().sorted().distinct().toList();
    }
}
