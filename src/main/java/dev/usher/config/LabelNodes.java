package dev.usher.config;

import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.common.ScalarStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Makes YAML nodes out of labels, so that the readers of {@code usher.yaml} read label sites with the same meanings
 * and messages. Every node's mark carries the name of its label, which is what an error about it names
 * ({@link ErrorList#forLabels}). A label's value is read as a YAML value, as if written after the colon in the file:
 * {@code true} is a boolean, {@code 10s} a string, {@code [a, b]} a list.
 */
final class LabelNodes {
    private LabelNodes() {
    }

    /** A plain string node from {@code label}. */
    static ScalarNode text(String text, String label) {
        return new ScalarNode(Tag.STR, true, text, ScalarStyle.PLAIN, mark(label), mark(label));
    }

    /** A mapping node from the labels under {@code label}. */
    static MappingNode mapping(List<NodeTuple> tuples, String label) {
        return new MappingNode(Tag.MAP, true, tuples, FlowStyle.BLOCK, mark(label), mark(label));
    }

    /**
     * The value of {@code label} read as YAML; nothing after recording the syntax error in {@code errors}. An empty
     * value is YAML's nothing, as {@code key:} with nothing after it.
     */
    static Optional<Node> value(String label, String value, ErrorList errors) {
        LoadSettings settings = LoadSettings.builder().setLabel(label).setSchema(new CoreSchema()).build();
        try {
            return Optional.of(new Compose(settings).composeString(value)
                    .orElseGet(() -> new ScalarNode(Tag.NULL, true, "", ScalarStyle.PLAIN, mark(label),
                            mark(label))));
        } catch (YamlEngineException e) {
            errors.addAtLabel(label, SyntaxErrors.describe(e) + " (the value is read as YAML, as after the colon "
                    + "in usher.yaml; quote it to keep it text)");
            return Optional.empty();
        }
    }

    private static Optional<Mark> mark(String label) {
        return Optional.of(new Mark(label, 0, 0, 0, new int[0], 0));
    }
}
