package dev.usher.config;

import java.util.Optional;
import org.snakeyaml.engine.v2.exceptions.ComposerException;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.ReaderException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;

/**
 * Turns SnakeYAML's exceptions into one error each, at the place the parser gave up. The parser stops at the first
 * syntax error, so a file that is not valid YAML gets exactly one error.
 */
final class SyntaxErrors {
    private static final String PREFIX = "YAML syntax error: ";

    private SyntaxErrors() {
    }

    /** Records {@code e}, thrown while composing {@code text}, in {@code errors}. */
    static void record(YamlEngineException e, String text, ErrorList errors) {
        if (e instanceof MarkedYamlEngineException marked) {
            Optional<Mark> mark = marked.getProblemMark().or(marked::getContextMark);
            errors.add(mark.map(m -> m.getLine() + 1).orElse(1), mark.map(m -> m.getColumn() + 1).orElse(1),
                    YamlPath.ROOT, message(marked));
        } else if (e instanceof ReaderException reader) {
            int[] position = position(text, reader.getPosition());
            errors.add(position[0], position[1], YamlPath.ROOT, String.format(
                    "the character U+%04X is not allowed in a YAML file", reader.getCodePoint()));
        } else {
            errors.add(1, 1, YamlPath.ROOT, "cannot read the YAML: " + e.getMessage());
        }
    }

    /** What {@code e} says, as one sentence without a position (for a label's value, which has no lines). */
    static String describe(YamlEngineException e) {
        return e instanceof MarkedYamlEngineException marked ? message(marked) : PREFIX + e.getMessage();
    }

    private static String message(MarkedYamlEngineException e) {
        String problem = e.getProblem() == null ? "" : e.getProblem().strip();
        String context = e.getContext() == null ? "" : e.getContext().strip();
        if (problem.contains("\\t(TAB)")) {
            return PREFIX + "a tab cannot start a token; indent with spaces, not tabs";
        }
        if (e instanceof ComposerException && problem.contains("another document")) {
            return PREFIX + "a second document (\"---\") starts here; the config must be a single document";
        }
        if (e instanceof ComposerException && problem.startsWith("found undefined alias")) {
            return PREFIX + "alias *" + problem.substring("found undefined alias".length()).strip()
                    + " refers to no anchor (&name) defined before it";
        }
        StringBuilder out = new StringBuilder(PREFIX).append(problem);
        Optional<Mark> contextMark = e.getContextMark();
        if (!context.isEmpty() && contextMark.isPresent()) {
            Mark m = contextMark.get();
            out.append(" (").append(context).append(" at line ").append(m.getLine() + 1)
                    .append(", column ").append(m.getColumn() + 1).append(')');
        }
        return out.toString();
    }

    /** The 1-based line and column of code point {@code index} in {@code text}. */
    static int[] position(String text, int index) {
        int line = 1;
        int column = 1;
        int points = 0;
        for (int i = 0; i < text.length() && points < index; i = text.offsetByCodePoints(i, 1), points++) {
            if (text.charAt(i) == '\n') {
                line++;
                column = 1;
            } else {
                column++;
            }
        }
        return new int[] {line, column};
    }
}
