package dev.usher.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Walks the composed YAML tree on behalf of the readers: checks node kinds, duplicate and unknown keys, and records
 * each problem in the {@link ErrorList} at the node's position and path, so that a reader can carry on after any
 * error and report the next one too. One instance per load.
 */
final class NodeWalker {
    /** Tags whose scalars read as strings; {@code ${X}} resolves to the env tag but is just text to Usher. */
    static final Set<Tag> STRING = Set.of(Tag.STR, Tag.ENV_TAG);
    /** Tags read by the duration and size parsers: strings, and numbers written bare. */
    static final Set<Tag> STRING_OR_NUMBER = Set.of(Tag.STR, Tag.ENV_TAG, Tag.INT, Tag.FLOAT);

    private static final int MAX_SHOWN = 40;

    /**
     * One entry of a mapping whose key is a scalar.
     *
     * @param key     the key's text
     * @param keyNode the key, for positions of errors about the key itself
     * @param value   the value node
     * @param path    the path of the value
     */
    record Field(String key, Node keyNode, Node value, YamlPath path) {
    }

    /**
     * The keys a mapping may have.
     *
     * @param allowed   the valid keys, in the order error messages list them
     * @param aliases   lower-case words people write instead of a valid key, mapped to it (suggested, not accepted)
     * @param misplaced valid keys of other sections, mapped to a message saying where they belong
     * @param synonyms  other spellings accepted as they are, mapped to the valid key they stand for
     *                  ({@code compress} for {@code gzip}); giving both is an error
     */
    record Keys(List<String> allowed, Map<String, String> aliases, Map<String, String> misplaced,
                Map<String, String> synonyms) {
        static Keys of(String... allowed) {
            return new Keys(List.of(allowed), Map.of(), Map.of(), Map.of());
        }

        Keys withAliases(Map<String, String> more) {
            return new Keys(allowed, more, misplaced, synonyms);
        }

        Keys withMisplaced(Map<String, String> more) {
            return new Keys(allowed, aliases, more, synonyms);
        }

        Keys withSynonyms(Map<String, String> more) {
            return new Keys(allowed, aliases, misplaced, more);
        }
    }

    private final ErrorList errors;

    NodeWalker(ErrorList errors) {
        this.errors = errors;
    }

    void error(Node node, YamlPath path, String message) {
        errors.add(node, path, message);
    }

    /** Where {@code node} was written: "on line 4" in a file, "in label usher.gzip" for a container's labels. */
    String where(Node node) {
        return errors.where(node);
    }

    /** How many errors were recorded so far: a reader compares it before and after a part to see if that failed. */
    int errorCount() {
        return errors.size();
    }

    /** Reports that {@code node} is not what was expected, saying what it is. */
    void typeError(Node node, YamlPath path, String expected) {
        error(node, path, "expected " + expected + ", found " + describe(node));
    }

    /**
     * The entries of a mapping, in file order. Reports a node that is not a mapping, keys that are not scalars and
     * repeated keys, and leaves those out. {@code keyNoun} names what a key is: "key", "site name".
     */
    List<Field> entries(Node node, YamlPath path, String expected, String keyNoun) {
        if (!(node instanceof MappingNode mapping)) {
            typeError(node, path, expected);
            return List.of();
        }
        List<Field> fields = new ArrayList<>();
        Map<String, Node> seen = new HashMap<>();
        for (NodeTuple tuple : mapping.getValue()) {
            Node keyNode = tuple.getKeyNode();
            if (!(keyNode instanceof ScalarNode scalar)) {
                typeError(keyNode, path, "a " + keyNoun);
                continue;
            }
            String key = scalar.getValue();
            Node first = seen.putIfAbsent(key, keyNode);
            if (first != null) {
                error(keyNode, path.key(key), "duplicate " + keyNoun + " \"" + key + "\"; first given "
                        + where(first));
                continue;
            }
            fields.add(new Field(key, keyNode, tuple.getValueNode(), path.key(key)));
        }
        return fields;
    }

    /**
     * The entries of a settings mapping by key. Also reports keys not in {@code keys}, suggesting the one probably
     * meant, and leaves them out. A synonym is filed under the key it stands for (the field keeps the key and path
     * as written); a synonym given beside its key is reported and left out.
     */
    Map<String, Field> fields(Node node, YamlPath path, String expected, Keys keys) {
        Map<String, Field> known = new LinkedHashMap<>();
        for (Field field : entries(node, path, expected, "key")) {
            String key = keys.allowed().contains(field.key()) ? field.key() : keys.synonyms().get(field.key());
            if (key == null) {
                error(field.keyNode(), field.path(), unknownKey(field.key(), keys));
            } else if (known.containsKey(key)) {
                Field first = known.get(key);
                error(field.keyNode(), field.path(), "\"" + field.key() + "\" and \"" + first.key()
                        + "\" are the same setting, already given " + where(first.keyNode()) + "; keep one");
            } else {
                known.put(key, field);
            }
        }
        return known;
    }

    private static String unknownKey(String key, Keys keys) {
        String where = keys.misplaced().get(key);
        if (where != null) {
            return where;
        }
        List<String> candidates = new ArrayList<>(keys.allowed());
        candidates.addAll(keys.synonyms().keySet().stream().sorted().toList());
        return Suggestions.closest(key, candidates, keys.aliases())
                .map(s -> "unknown key \"" + key + "\"; did you mean \"" + s + "\"?")
                .orElse("unknown key \"" + key + "\"; expected one of: " + String.join(", ", keys.allowed()));
    }

    /** The text of a scalar with one of {@code tags}; otherwise reports a type error and gives nothing. */
    Optional<String> text(Node node, YamlPath path, String expected, Set<Tag> tags) {
        if (node instanceof ScalarNode scalar && tags.contains(scalar.getTag())) {
            return Optional.of(scalar.getValue());
        }
        typeError(node, path, expected);
        return Optional.empty();
    }

    /** True for an empty value, {@code ~} or {@code null}. */
    static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    /** What a node is, in the words of an error message: "a list", "a number (8080)", "nothing". */
    static String describe(Node node) {
        if (node instanceof MappingNode) {
            return "a mapping";
        }
        if (node instanceof SequenceNode) {
            return "a list";
        }
        String value = ((ScalarNode) node).getValue();
        String shown = value.length() > MAX_SHOWN ? value.substring(0, MAX_SHOWN) + "..." : value;
        Tag tag = node.getTag();
        if (Tag.NULL.equals(tag)) {
            return "nothing";
        }
        if (Tag.INT.equals(tag) || Tag.FLOAT.equals(tag)) {
            return "a number (" + shown + ")";
        }
        if (Tag.BOOL.equals(tag)) {
            return "a boolean (" + shown + ")";
        }
        if (STRING.contains(tag)) {
            return "a string (\"" + shown + "\")";
        }
        return "a value tagged " + tag.getValue();
    }
}
