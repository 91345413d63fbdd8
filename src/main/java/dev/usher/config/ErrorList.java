package dev.usher.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * The errors found in one file so far. One instance per load; not shared between threads.
 * SnakeYAML marks are 0-based; everything here is 1-based, as editors show it.
 */
final class ErrorList {
    private final String file;
    private final List<ConfigError> errors = new ArrayList<>();

    ErrorList(String file) {
        this.file = file;
    }

    /** Records an error at the start of {@code node}. */
    void add(Node node, YamlPath path, String message) {
        add(line(node), column(node), path, message);
    }

    /** Records an error at a 1-based position. */
    void add(int line, int column, YamlPath path, String message) {
        errors.add(new ConfigError(file, line, column, path.text(), message));
    }

    boolean isEmpty() {
        return errors.isEmpty();
    }

    /** The errors in file order (by line, then column; errors at one spot keep the order they were found in). */
    List<ConfigError> sorted() {
        List<ConfigError> copy = new ArrayList<>(errors);
        copy.sort(Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column));
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
