package dev.usher.config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Reads {@code usher.yaml} into a validated {@link UsherConfig}. Either every setting is valid and a whole config
 * comes back, or a {@link ConfigException} carries every error found, in file order, each with its file, line,
 * column and YAML path. Stateless and safe to call from any thread.
 *
 * <p>The file is composed into a YAML node tree (never into Java objects, so no type tags can instantiate classes)
 * and the tree is walked by hand, which is what lets each error point at its node.
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * Reads and validates a config file.
     *
     * @param file the file, read as UTF-8; errors name it as {@code file.toString()}
     * @return the validated config, with {@code source} set to {@code file.toString()}
     * @throws ConfigException if the file has any error (bad UTF-8 included); it carries all of them
     * @throws IOException     if the file cannot be read
     */
    public static UsherConfig load(Path file) throws ConfigException, IOException {
        String name = file.toString();
        Path folder = file.toAbsolutePath().getParent();
        return parse(decode(Files.readAllBytes(file), name), name, HostEnvironment.current(),
                folder == null ? Path.of("").toAbsolutePath() : folder);
    }

    /**
     * Validates {@code bytes} as if they were the content of {@code file}: errors name the file, and relative paths
     * start from its folder. What the admin API checks an edit with before writing it (the code of {@code usher
     * check}).
     */
    public static UsherConfig parse(byte[] bytes, Path file) throws ConfigException {
        String name = file.toString();
        Path folder = file.toAbsolutePath().getParent();
        return parse(decode(bytes, name), name, HostEnvironment.current(),
                folder == null ? Path.of("").toAbsolutePath() : folder);
    }

    /**
     * Validates config text.
     *
     * @param yaml     the file's content
     * @param fileName the name errors and {@link UsherConfig#source()} give
     * @return the validated config
     * @throws ConfigException if the text has any error; it carries all of them
     */
    public static UsherConfig parse(String yaml, String fileName) throws ConfigException {
        return parse(yaml, fileName, HostEnvironment.current(), Path.of("").toAbsolutePath());
    }

    /** As {@link #parse(String, String)}, with the user facts that defaults depend on given. */
    static UsherConfig parse(String yaml, String fileName, HostEnvironment env) throws ConfigException {
        return parse(yaml, fileName, env, Path.of("").toAbsolutePath());
    }

    /**
     * As {@link #parse(String, String)}, with the user facts that defaults depend on given, and the folder that
     * relative paths in the file ({@code data:}, certificate files) are resolved against.
     */
    static UsherConfig parse(String yaml, String fileName, HostEnvironment env, Path baseDir) throws ConfigException {
        ErrorList errors = new ErrorList(fileName);
        String text = yaml.startsWith("\uFEFF") ? yaml.substring(1) : yaml;
        Optional<Node> root;
        try {
            root = new Compose(settings(fileName)).composeString(text);
        } catch (YamlEngineException e) {
            SyntaxErrors.record(e, text, errors);
            throw new ConfigException(errors.sorted());
        }
        UsherConfig config = new ConfigReader(new NodeWalker(errors), env, baseDir).read(root, fileName);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors.sorted());
        }
        return config;
    }

    private static LoadSettings settings(String fileName) {
        // Core schema: ~ and null are null, 8080 is an int, "yes" stays a string (YAML 1.2), and merge keys
        // (<<: *defaults) are resolved while composing. Non-scalar keys are let through so that the walker can
        // report them at their position; nothing here ever hashes a key node.
        return LoadSettings.builder().setLabel(fileName).setSchema(new CoreSchema()).setAllowNonScalarKeys(true)
                .build();
    }

    /** Strict UTF-8: a bad byte is a config error at its line and column, not a silent U+FFFD. */
    private static String decode(byte[] bytes, String fileName) throws ConfigException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            String before = out.flip().toString();
            int line = (int) before.chars().filter(c -> c == '\n').count() + 1;
            int column = before.codePointCount(before.lastIndexOf('\n') + 1, before.length()) + 1;
            throw new ConfigException(List.of(new ConfigError(fileName, line, column, "",
                    "the file is not valid UTF-8 text (bad byte 0x" + String.format("%02X", bytes[in.position()])
                            + "); save it as UTF-8")));
        }
        decoder.flush(out);
        return out.flip().toString();
    }
}
