package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;

/**
 * Reads {@code crowdsec:} (top level): the local API's URL and the bouncer key, from a file of its own
 * ({@code key_file}) or an environment variable ({@code key: ${VARIABLE}}), read now, as every credential
 * ({@link SecretReader}). The key is never shown in an error.
 */
final class CrowdSecReader {
    private static final Keys KEYS = Keys.of("url", "key", "key_file", "interval")
            .withAliases(Map.ofEntries(Map.entry("api_url", "url"), Map.entry("lapi_url", "url"), Map.entry("address", "url"), Map.entry("api_key", "key"), Map.entry("apikey", "key"), Map.entry("token", "key"), Map.entry("api_key_file", "key_file"), Map.entry("keyfile", "key_file"), Map.entry("ticker_interval", "interval"), Map.entry("update_frequency", "interval"), Map.entry("poll", "interval")));
    private static final String EXAMPLE = "{url: http://127.0.0.1:8080, key_file: /etc/usher/crowdsec.key}";
    private static final Duration MIN_INTERVAL = Duration.ofSeconds(1);

    private final NodeWalker walker;
    private final Values values;
    private final SecretReader secrets;

    CrowdSecReader(NodeWalker walker, Values values, SecretReader secrets) {
        this.walker = walker;
        this.values = values;
        this.secrets = secrets;
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
        Optional<String> key = secrets.read(fields, section, "key", "the CrowdSec bouncer key")
                .flatMap(secret -> values.parse(section.value(), section.path(), () -> key(secret)));
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

    private static String key(Secret secret) throws BadValue {
        String key = secret.reveal().strip();
        if (key.isEmpty() || !key.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
            throw new BadValue("the bouncer key from " + secret.origin() + " is not printable ASCII without spaces "
                    + "(cscli bouncers add usher prints one)");
        }
        return key;
    }
}
