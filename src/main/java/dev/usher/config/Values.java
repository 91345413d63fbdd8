package dev.usher.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads typed settings (durations, sizes, counts, booleans, fixed words, IP networks), reporting type and format
 * errors through the walker.
 * Each method gives nothing when the value is wrong, after recording why.
 */
final class Values {
    /** Words YAML 1.1 read as booleans and YAML 1.2 (the core schema Usher uses) reads as strings. */
    private static final Set<String> YAML11_BOOLEANS = Set.of("yes", "no", "on", "off", "y", "n");

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
        return integer(field, "a whole number such as 10000", 1, Integer.MAX_VALUE);
    }

    /**
     * A whole number from {@code min} to {@code max}, written with digits only (bare or quoted).
     *
     * @param expected what the value should be, as in "a whole number such as 100"
     */
    Optional<Integer> integer(NodeWalker.Field field, String expected, int min, int max) {
        Optional<String> text = walker.text(field.value(), field.path(), expected, NodeWalker.STRING_OR_NUMBER);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        String digits = text.get().strip();
        if (digits.startsWith("-") && digits.length() > 1 && digits.chars().skip(1).allMatch(Character::isDigit)) {
            walker.error(field.value(), field.path(), "must be at least " + min + "; got " + digits);
            return Optional.empty();
        }
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            walker.error(field.value(), field.path(), "expected " + expected + ", found \"" + text.get() + "\"");
            return Optional.empty();
        }
        String trimmed = digits.replaceFirst("^0+(?=.)", "");
        long value = trimmed.length() > 10 ? Long.MAX_VALUE : Long.parseLong(trimmed);
        if (value < min || value > max) {
            walker.error(field.value(), field.path(), value < min ? "must be at least " + min + "; got " + digits
                    : "too large; at most " + max);
            return Optional.empty();
        }
        return Optional.of((int) value);
    }

    /**
     * {@code true} or {@code false}. Quoted words and YAML 1.1 spellings ({@code yes}, {@code off}) are strings in
     * YAML 1.2, so they are refused with a hint rather than guessed at.
     */
    Optional<Boolean> bool(NodeWalker.Field field) {
        Node node = field.value();
        if (node instanceof ScalarNode scalar && Tag.BOOL.equals(scalar.getTag())) {
            return Optional.of(Boolean.parseBoolean(scalar.getValue().toLowerCase(Locale.ROOT)));
        }
        if (node instanceof ScalarNode scalar && NodeWalker.STRING.contains(scalar.getTag())) {
            String word = scalar.getValue().strip().toLowerCase(Locale.ROOT);
            if (word.equals("true") || word.equals("false")) {
                walker.error(node, field.path(), "expected true or false, found a string (\"" + scalar.getValue()
                        + "\"); write " + word + " without quotes");
                return Optional.empty();
            }
            if (YAML11_BOOLEANS.contains(word)) {
                walker.error(node, field.path(), "expected true or false, found a string (\"" + scalar.getValue()
                        + "\"); YAML 1.2 reads " + word + " as text, so write true or false");
                return Optional.empty();
            }
        }
        walker.typeError(node, field.path(), "true or false");
        return Optional.empty();
    }

    /** True for {@code off} or {@code false}: an option a site has, turned off for one of its paths. */
    static boolean isOff(Node node) {
        return node instanceof ScalarNode scalar && (Tag.BOOL.equals(scalar.getTag())
                && scalar.getValue().equalsIgnoreCase("false") || NodeWalker.STRING.contains(scalar.getTag())
                && scalar.getValue().strip().equalsIgnoreCase("off"));
    }

    /**
     * One of a fixed set of words, written exactly; otherwise an error with the word probably meant.
     *
     * @param noun    what the word is, for messages: "policy"
     * @param words   the valid words, in the order messages list them
     * @param aliases lower-case words people write instead, mapped to the valid word
     */
    Optional<String> word(NodeWalker.Field field, String noun, List<String> words, Map<String, String> aliases) {
        Optional<String> text = walker.text(field.value(), field.path(), "a " + noun + " (" + String.join(", ", words)
                + ")", NodeWalker.STRING);
        if (text.isEmpty() || words.contains(text.get())) {
            return text;
        }
        String typed = text.get();
        walker.error(field.value(), field.path(), Suggestions.closest(typed, words, aliases)
                .map(s -> "unknown " + noun + " \"" + typed + "\"; did you mean \"" + s + "\"?")
                .orElse("unknown " + noun + " \"" + typed + "\"; use one of: " + String.join(", ", words)));
        return Optional.empty();
    }

    /**
     * IP networks: one address or CIDR range, or a list of them ({@link Cidr#parse}); nothing if any is wrong.
     *
     * @param allowEmpty whether an empty list is accepted; when not, {@code whyNotEmpty} says why
     */
    Optional<List<Cidr>> cidrs(NodeWalker.Field field, boolean allowEmpty, String whyNotEmpty) {
        String expected = "an IP address or CIDR range such as 10.0.0.0/8, or a list of them";
        if (field.value() instanceof SequenceNode list) {
            if (list.getValue().isEmpty() && !allowEmpty) {
                walker.error(list, field.path(), "the list is empty; " + whyNotEmpty);
                return Optional.empty();
            }
            List<Cidr> result = new ArrayList<>();
            boolean ok = true;
            for (int i = 0; i < list.getValue().size(); i++) {
                Optional<Cidr> one = cidr(list.getValue().get(i), field.path().index(i),
                        "an IP address or CIDR range such as 10.0.0.0/8");
                one.ifPresent(result::add);
                ok &= one.isPresent();
            }
            return ok ? Optional.of(List.copyOf(result)) : Optional.empty();
        }
        return cidr(field.value(), field.path(), expected).map(List::of);
    }

    private Optional<Cidr> cidr(Node node, YamlPath path, String expected) {
        return walker.text(node, path, expected, NodeWalker.STRING).flatMap(text -> parse(node, path, () -> {
            try {
                return Cidr.parse(text);
            } catch (IllegalArgumentException e) {
                throw new BadValue(e.getMessage());
            }
        }));
    }

    /**
     * A file or folder path, resolved against {@code baseDir} (the config file's folder) when relative, and
     * normalised; its existence is the caller's to check.
     */
    Optional<java.nio.file.Path> path(NodeWalker.Field field, java.nio.file.Path baseDir, String expected) {
        return walker.text(field.value(), field.path(), expected, NodeWalker.STRING)
                .flatMap(text -> parse(field.value(), field.path(), () -> {
                    String trimmed = text.strip();
                    if (trimmed.isEmpty()) {
                        throw new BadValue("the path is empty; expected " + expected);
                    }
                    if (trimmed.indexOf('\0') >= 0) {
                        throw new BadValue("a path cannot contain a NUL character");
                    }
                    try {
                        return baseDir.resolve(trimmed).toAbsolutePath().normalize();
                    } catch (java.nio.file.InvalidPathException e) {
                        throw new BadValue("invalid path \"" + trimmed + "\": " + e.getReason());
                    }
                }));
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
