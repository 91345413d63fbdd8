package dev.usher.config;

import java.util.List;
import org.snakeyaml.engine.v2.nodes.NodeTuple;

/**
 * What one container's labels ask for, before the site reader checks it: the names to serve (each with the label
 * that gave it and the label that picks its port, if any), the label that picks the network, and the site options
 * as the node tree a site's long form would have in {@code usher.yaml}.
 *
 * @param names   the site names, as written ({@code http://} for a plain-HTTP one)
 * @param network the label naming the network to reach the container on, or null
 * @param options the site settings other than {@code to}, as key/value nodes whose marks name their labels
 */
record LabelRequest(List<Name> names, Label network, List<NodeTuple> options) {
    LabelRequest {
        names = List.copyOf(names);
        options = List.copyOf(options);
    }

    /** A label and its value. */
    record Label(String name, String value) {
    }

    /**
     * One name to serve.
     *
     * @param text  the name as written
     * @param label the label it was written in
     * @param port  the label that picks its port, or null for the container's single exposed port
     */
    record Name(String text, String label, Label port) {
    }
}
