package dev.usher.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The errors found in one file so far. One instance per load; not shared between threads.
 * SnakeYAML marks are 0-based; everything here is 1-based, as editors show it.
 *
 * <p>For the labels of a container ({@link #forLabels}) there are no lines: each node's mark carries the name of the
 * label it came from, and an error names that label where a file's error gives its line, column and YAML path.
 */
final class ErrorList {
    private final String file;
    private final boolean labels;
    private final List<ConfigError> errors = new ArrayList<>();

    ErrorList(String file) {
        this(file, false);
    }

    private ErrorList(String file, boolean labels) {
        this.file = file;
        this.labels = labels;
    }

    /** The errors of one container's labels: {@code source} is what they name in place of a file. */
    static ErrorList forLabels(String source) {
        return new ErrorList(source, true);
    }

    /** Records an error at the start of {@code node} (for labels: at the label it came from). */
    void add(Node node, YamlPath path, String message) {
        if (labels) {
            errors.add(new ConfigError(file, 0, 0, "label " + label(node), message));
            return;
        }
        add(line(node), column(node), path, message);
    }

    /** Records an error about the label {@code label} (null: about the container as a whole); labels only. */
    void addAtLabel(String label, String message) {
        errors.add(new ConfigError(file, 0, 0, label == null ? "" : "label " + label, message));
    }

    /** Where {@code node} was written, for messages that point at an earlier node: "on line 4", "in label usher.gzip". */
    String where(Node node) {
        return labels ? "in label " + label(node) : "on line " + line(node);
    }

    /** The label a node of a container's labels came from: its mark's name. */
    private static String label(Node node) {
        return node.getStartMark().map(Mark::getName).orElse("?");
    }

    /** Records an error at a 1-based position. */
    void add(int line, int column, YamlPath path, String message) {
        errors.add(new ConfigError(file, line, column, path.text(), message));
    }

    int size() {
        return errors.size();
    }

    boolean isEmpty() {
        return errors.isEmpty();
    }

    /**
     * The errors in file order (by line, then column; errors at one spot keep the order they were found in); for
     * labels, by label name.
     */
    List<ConfigError> sorted() {
        List<ConfigError> copy = new ArrayList<>(errors);
        copy.sort(labels ? Comparator.comparing(ConfigError::path)
                : Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column));
        return List.copyOf(copy);
    }

    /** The 1-based line where {@code node} starts (1 when the parser kept no mark). */
    static int line(Node node) {
        return node.getStartMark().map(Mark::getLine).orElse(0) + 1;
    }

    /** The 1-based column where {@code node} starts (1 when the parser kept no mark). */
    static int column(Node node) {
        return node.getStartMark().map(Mark::getColumn).orElse(0) + 1;
    }
}
