package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads {@code crowdsec:} (top level): the local API's URL and the bouncer key, given in the file ({@code key})
 * or, better, in a file of its own ({@code key_file}), read now. The key is never shown in an error.
 */
final class CrowdSecReader {
    private static final Keys KEYS = Keys.of("url", "key", "key_file", "interval")
            .withAliases(Map.ofEntries(Map.entry("api_url", "url"), Map.entry("lapi_url", "url"), Map.entry("address", "url"), Map.entry("api_key", "key"), Map.entry("apikey", "key"), Map.entry("token", "key"), Map.entry("api_key_file", "key_file"), Map.entry("keyfile", "key_file"), Map.entry("ticker_interval", "interval"), Map.entry("update_frequency", "interval"), Map.entry("poll", "interval")));
    private static final String EXAMPLE = "{url: http://127.0.0.1:8080, key_file: /etc/usher/crowdsec.key}";
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;

    CrowdSecReader(NodeWalker walker, Values values, Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    Optional<CrowdSecSetting> read(Field section) {
        if (!(section.value() instanceof MappingNode)) {
            walker.typeError(section.value(), section.path(), "a mapping such as " + EXAMPLE);
            return Optional.empty();
        }
        Map<String, Field> fields = walker.fields(section.value(), section.path(), "a mapping such as " + EXAMPLE,
                KEYS);
        Field urlField = fields.get("url");
        Optional<URI> url = urlField == null ? Optional.of(URI.create("http://127.0.0.1:8080"))
                : walker.text(urlField.value(), urlField.path(), "the local API's URL, such as "
                        + "http://127.0.0.1:8080", NodeWalker.STRING)
                .flatMap(t -> values.parse(urlField.value(), urlField.path(), () -> url(t)));
        Field keyField = fields.get("key");
        Field fileField = fields.get("key_file");
        Optional<String> key = Optional.empty();
        if (keyField != null && fileField != null) {
            walker.error(fileField.keyNode(), fileField.path(), "give the bouncer key once: key or key_file");
        } else if (keyField != null) {
            key = walker.text(keyField.value(), keyField.path(), "the bouncer key from cscli bouncers add",
                    NodeWalker.STRING).flatMap(t -> values.parse(keyField.value(), keyField.path(), () -> key(t)));
        } else if (fileField != null) {
            key = values.path(fileField, baseDir, "a file holding the bouncer key")
                    .flatMap(p -> values.parse(fileField.value(), fileField.path(), () -> keyFile(p)));
        } else {
            walker.error(section.keyNode(), section.path(), "missing \"key_file\" (or \"key\"): the bouncer key "
                    + "that cscli bouncers add usher prints, as in " + EXAMPLE);
        }
        Optional<Duration> interval = Optional.ofNullable(fields.get("interval")).map(f -> values.duration(f)
                .filter(d -> {
                    if (d.compareTo(MIN_INTERVAL) < 0) {
                        walker.error(f.value(), f.path(), "the interval must be at least 1s");
                        return false;
                    }
                    return true;
                })).orElse(Optional.of(CrowdSecSetting.DEFAULT_INTERVAL));
        if (url.isEmpty() || key.isEmpty() || interval.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CrowdSecSetting(url.get(), key.get(), interval.get()));
    }

    static URI url(String text) throws BadValue {
        try {
            URI uri = new URI(text.strip());
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
                throw new BadValue("the local API is an http:// or https:// URL such as http://127.0.0.1:8080; got \""
                        + text.strip() + "\"");
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            if (!path.isEmpty() && !path.equals("/") || uri.getRawQuery() != null) {
                throw new BadValue("give the local API's base URL without a path (Usher asks /v1/decisions/stream)");
            }
            return new URI(scheme, null, uri.getHost(), uri.getPort(), null, null, null);
        } catch (URISyntaxException e) {
            throw new BadValue("\"" + text.strip() + "\" is not a URL: " + e.getReason());
        }
    }

    private static String key(String text) throws BadValue {
        String key = text.strip();
        if (key.isEmpty() || !key.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
            throw new BadValue("the bouncer key is printable ASCII without spaces (cscli bouncers add usher prints "
                    + "one)");
        }
        return key;
    }

    private static String keyFile(Path file) throws BadValue {
        try {
            if (Files.size(file) > 4096) {
                throw new BadValue("the key file " + file + " is too large to hold a bouncer key");
            }
            return key(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new BadValue("cannot read the key file " + file + ": " + e.getMessage());
        }
    }
}
