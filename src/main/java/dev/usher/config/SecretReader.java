package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a credential given as {@code KEY: ${VARIABLE}} (from the environment) or {@code KEY_file: FILE} (its
 * content, trimmed). A credential written into the file itself is refused: the admin API shows the file and backups
 * hold it. A missing variable, an unreadable or empty file are errors at their position, so {@code usher check}
 * reports them before a certificate order would fail.
 */
final class SecretReader {
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}");

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;
    private final HostEnvironment env;

    SecretReader(NodeWalker walker, Values values, Path baseDir, HostEnvironment env) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
        this.env = env;
    }

    /** True when {@code KEY} or {@code KEY_file} is given. */
    static boolean given(Map<String, Field> fields, String key) {
        return fields.containsKey(key) || fields.containsKey(key + "_file");
    }

    /**
     * The credential under {@code key} or {@code key_file}; nothing (after an error) when both or neither are given,
     * or it cannot be had.
     *
     * @param parent the mapping's own field, where "missing" points
     * @param what   what the credential is, for messages: "the Cloudflare API token"
     */
    Optional<Secret> read(Map<String, Field> fields, Field parent, String key, String what) {
        Field inline = fields.get(key);
        Field file = fields.get(key + "_file");
        if (inline != null && file != null) {
            walker.error(file.keyNode(), file.path(), "give " + what + " once: " + key + ": ${VARIABLE} or " + key
                    + "_file: FILE, not both");
            return Optional.empty();
        }
        if (inline == null && file == null) {
            walker.error(parent.keyNode(), parent.path(), "missing " + what + ": add " + key + "_file: FILE (a file "
                    + "holding it) or " + key + ": ${VARIABLE} (an environment variable)");
            return Optional.empty();
        }
        return inline != null ? fromEnvironment(inline, key, what) : fromFile(file, what);
    }

    private Optional<Secret> fromEnvironment(Field field, String key, String what) {
        return walker.text(field.value(), field.path(), "${VARIABLE}, an environment variable holding " + what,
                NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Matcher m = VARIABLE.matcher(text.strip());
                    if (!m.matches()) {
                        throw new BadValue(what + " does not belong in usher.yaml (the admin API shows this file and "
                                + "backups keep it); put it in a file and write " + key + "_file: FILE, or in an "
                                + "environment variable and write " + key + ": ${VARIABLE}");
                    }
                    String name = m.group(1);
                    String value = env.variables().get(name);
                    if (value == null || value.isBlank()) {
                        throw new BadValue("the environment variable " + name + " (" + what + ") is "
                                + (value == null ? "not set" : "empty"));
                    }
                    return new Secret(value.strip(), "the environment variable " + name);
                }));
    }

    private Optional<Secret> fromFile(Field field, String what) {
        return walker.text(field.value(), field.path(), "a file holding " + what, NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    String content = read(path, what);
                    if (content.isEmpty()) {
                        throw new BadValue(path + " is empty; it should hold " + what);
                    }
                    return new Secret(content, "the file " + path);
                }));
    }

    /** The file's content without surrounding white space; a readable error when it cannot be read. */
    static String read(Path path, String what) throws BadValue {
        if (!Files.exists(path)) {
            throw new BadValue("cannot read " + path + " (" + what + "): no such file");
        }
        if (!Files.isReadable(path) || Files.isDirectory(path)) {
            throw new BadValue("cannot read " + path + " (" + what + "): " + (Files.isDirectory(path)
                    ? "it is a directory" : "permission denied for this user"));
        }
        try {
            return Files.readString(path, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new BadValue("cannot read " + path + " (" + what + "): " + e.getMessage());
        }
    }
}
