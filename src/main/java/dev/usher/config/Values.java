package dev.usher.config;

import java.time.Duration;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads typed scalar settings (durations, sizes, counts), reporting type and format errors through the walker.
 * Each method gives nothing when the value is wrong, after recording why.
 */
final class Values {
    private final NodeWalker walker;

    Values(NodeWalker walker) {
        this.walker = walker;
    }

    /** A duration greater than zero: {@code 500ms}, {@code 10s}, {@code 1m30s}, or a number of seconds. */
    Optional<Duration> duration(NodeWalker.Field field) {
        return walker.text(field.value(), field.path(), "a duration such as 10s", NodeWalker.STRING_OR_NUMBER)
                .flatMap(text -> parse(field.value(), field.path(), () -> Durations.parse(text)));
    }

    /** A size in bytes from 0 to {@code max}: {@code 16KiB}, {@code 10MB}, or a number of bytes. */
    Optional<Long> size(NodeWalker.Field field, long min, long max) {
        Optional<Long> size = walker.text(field.value(), field.path(), "a size such as 10MiB",
                        NodeWalker.STRING_OR_NUMBER)
                .flatMap(text -> parse(field.value(), field.path(), () -> Sizes.parse(text)));
        if (size.isPresent() && (size.get() < min || size.get() > max)) {
            walker.error(field.value(), field.path(), size.get() < min
                    ? "must be at least " + min + " byte" + (min == 1 ? "" : "s")
                    : "too large; at most " + max + " bytes");
            return Optional.empty();
        }
        return size;
    }

    /** A whole number from 1 to {@code Integer.MAX_VALUE}, written with digits only. */
    Optional<Integer> positiveInt(NodeWalker.Field field) {
        String expected = "a whole number such as 10000";
        Optional<String> text = walker.text(field.value(), field.path(), expected, NodeWalker.STRING_OR_NUMBER);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        String digits = text.get().strip();
        if (digits.startsWith("-") && digits.length() > 1 && digits.chars().skip(1).allMatch(Character::isDigit)) {
            walker.error(field.value(), field.path(), "must be at least 1; got " + digits);
            return Optional.empty();
        }
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            walker.error(field.value(), field.path(), "expected " + expected + ", found \"" + text.get() + "\"");
            return Optional.empty();
        }
        String trimmed = digits.replaceFirst("^0+(?=.)", "");
        long value = trimmed.length() > 10 ? Long.MAX_VALUE : Long.parseLong(trimmed);
        if (value < 1 || value > Integer.MAX_VALUE) {
            walker.error(field.value(), field.path(), value < 1 ? "must be at least 1; got " + digits
                    : "too large; at most " + Integer.MAX_VALUE);
            return Optional.empty();
        }
        return Optional.of((int) value);
    }

    /** Runs {@code parser}; when it fails, records its message at {@code node} and gives nothing. */
    <T> Optional<T> parse(Node node, YamlPath path, Parser<T> parser) {
        try {
            return Optional.of(parser.parse());
        } catch (BadValue e) {
            walker.error(node, path, e.getMessage());
            return Optional.empty();
        }
    }

    /** A parse that may fail with a message for the user. */
    @FunctionalInterface
    interface Parser<T> {
        T parse() throws BadValue;
    }
}
