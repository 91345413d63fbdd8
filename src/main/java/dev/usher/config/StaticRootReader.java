package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads a site served from a folder: {@code root:} and the keys that go with it ({@code index}, {@code browse},
 * {@code spa}, {@code precompressed}). The folder must exist when the config is loaded; so must the {@code spa}
 * file, inside it.
 */
final class StaticRootReader {
    static final List<String> KEYS = List.of("index", "browse", "spa", "precompressed");
    private static final String ROOT_ONLY = " only applies to a site served from a folder (root:)";

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;

    StaticRootReader(NodeWalker walker, Values values, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    /** The folder settings, or null when the site has no {@code root:} (or it is wrong, after an error). */
    StaticRoot read(Map<String, Field> fields) {
        Field rootField = fields.get("root");
        if (rootField == null) {
            for (String key : KEYS) {
                Field f = fields.get(key);
                if (f != null) {
                    walker.error(f.keyNode(), f.path(), f.key() + ROOT_ONLY);
                }
            }
            return null;
        }
        Optional<Path> root = values.path(rootField, baseDir, "a folder such as /srv/www")
                .flatMap(p -> values.parse(rootField.value(), rootField.path(), () -> folder(p)));
        List<String> index = Optional.ofNullable(fields.get("index")).map(this::index)
                .orElse(Optional.of(StaticRoot.DEFAULT_INDEX)).orElse(null);
        boolean browse = Optional.ofNullable(fields.get("browse")).flatMap(values::bool).orElse(false);
        boolean precompressed = Optional.ofNullable(fields.get("precompressed")).flatMap(values::bool).orElse(true);
        Field spaField = fields.get("spa");
        Optional<String> spa = spaField == null || root.isEmpty() ? Optional.empty()
                : walker.text(spaField.value(), spaField.path(), "a file in the root, such as index.html",
                        NodeWalker.STRING).flatMap(t -> values.parse(spaField.value(), spaField.path(),
                        () -> spaFile(root.get(), t)));
        if (root.isEmpty() || index == null || spaField != null && spa.isEmpty()) {
            return null;
        }
        return new StaticRoot(root.get(), index, browse, spa.orElse(null), precompressed);
    }

    private static Path folder(Path path) throws BadValue {
        if (!Files.isDirectory(path)) {
            throw new BadValue(Files.exists(path) ? path + " is not a folder" : "the folder " + path
                    + " does not exist");
        }
        if (!Files.isReadable(path) || !Files.isExecutable(path)) {
            throw new BadValue("cannot read the folder " + path);
        }
        return path;
    }

    /** One file name or a list of them; each a plain name, no folder. */
    private Optional<List<String>> index(Field field) {
        List<Field> items = new ArrayList<>();
        if (field.value() instanceof SequenceNode list) {
            if (list.getValue().isEmpty()) {
                walker.error(list, field.path(), "the list is empty; give a file name such as index.html, or leave "
                        + "index: out");
                return Optional.empty();
            }
            for (int i = 0; i < list.getValue().size(); i++) {
                items.add(new Field(field.key(), field.keyNode(), list.getValue().get(i), field.path().index(i)));
            }
        } else {
            items.add(field);
        }
        List<String> names = new ArrayList<>();
        boolean ok = true;
        for (Field item : items) {
            Optional<String> name = walker.text(item.value(), item.path(), "a file name such as index.html",
                    NodeWalker.STRING).flatMap(t -> values.parse(item.value(), item.path(), () -> indexName(t)));
            name.ifPresent(names::add);
            ok &= name.isPresent();
        }
        return ok ? Optional.of(List.copyOf(names)) : Optional.empty();
    }

    static String indexName(String text) throws BadValue {
        String name = text.strip();
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\\') >= 0 || name.equals(".")
                || name.equals("..") || name.indexOf('\0') >= 0) {
            throw new BadValue("an index is a file name in the folder asked for, such as index.html; got \""
                    + text + "\"");
        }
        return name;
    }

    /** The single-page app's file: relative to the root, inside it, and there. */
    static String spaFile(Path root, String text) throws BadValue {
        String name = text.strip();
        while (name.startsWith("/")) {
            name = name.substring(1);
        }
        if (name.isEmpty()) {
            throw new BadValue("spa names the file served for every path that is not a file, such as index.html");
        }
        Path file;
        try {
            file = root.resolve(name).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw new BadValue("invalid file name \"" + text + "\": " + e.getReason());
        }
        if (!file.startsWith(root) || file.equals(root)) {
            throw new BadValue("the spa file must be inside the root " + root + "; got \"" + text + "\"");
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new BadValue("the spa file " + file + " does not exist or cannot be read");
        }
        return root.relativize(file).toString();
    }
}
