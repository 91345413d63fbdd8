package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code forward_auth:}: the auth server's URL alone, or {@code {url, copy_headers, timeout, preset}}. A preset
 * gives the path asked on the server when the URL has none, the headers to copy when none are listed, and for
 * Authentik the outpost path that goes to the server itself.
 */
final class ForwardAuthReader {
    static final List<String> PRESETS = List.of("authelia", "authentik");
    private static final Keys KEYS = Keys.of("url", "copy_headers", "timeout", "preset", "tls")
            .withAliases(Map.ofEntries(Map.entry("address", "url"), Map.entry("uri", "url"),
                    Map.entry("server", "url"), Map.entry("endpoint", "url"), Map.entry("headers", "copy_headers"),
                    Map.entry("response_headers", "copy_headers"), Map.entry("auth_response_headers", "copy_headers"),
                    Map.entry("trust_headers", "copy_headers"), Map.entry("provider", "preset"),
                    Map.entry("type", "preset"), Map.entry("upstream_tls", "tls")));
    private static final String EXAMPLE = "{url: http://authelia:9091/api/authz/forward-auth, copy_headers: "
            + "[Remote-User, Remote-Groups]}";

    /** What a preset fills in: the path asked, the headers copied, the outpost path. */
    private record Preset(String uri, List<String> copyHeaders, String outpostPath) {
    }

    private static final Map<String, Preset> DEFAULTS = Map.of(
            // Authelia 4.38 and later: the forward-auth flavour of its authz endpoints.
            "authelia", new Preset("/api/authz/forward-auth",
                    List.of("Remote-User", "Remote-Groups", "Remote-Email", "Remote-Name"), null),
            // Authentik's proxy outpost, as its Caddy integration calls it.
            "authentik", new Preset("/outpost.goauthentik.io/auth/caddy",
                    List.of("X-Authentik-Username", "X-Authentik-Groups", "X-Authentik-Entitlements",
                            "X-Authentik-Email", "X-Authentik-Name", "X-Authentik-Uid", "X-Authentik-Jwt",
                            "X-Authentik-Meta-Jwks", "X-Authentik-Meta-Outpost", "X-Authentik-Meta-Provider",
                            "X-Authentik-Meta-App", "X-Authentik-Meta-Version"),
                    "/outpost.goauthentik.io/"));

    private final NodeWalker walker;
    private final Values values;
    /** Where a {@code tls: {ca: ...}} file is looked up from: the config file's folder. */
    private final java.nio.file.Path baseDir;

    ForwardAuthReader(NodeWalker walker, Values values, java.nio.file.Path baseDir) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
    }

    /** The setting, or nothing when it has errors (recorded). */
    Optional<ForwardAuth> read(Field field) {
        if (!(field.value() instanceof MappingNode)) {
            return url(field).map(u -> new ForwardAuth(verified(u.server(), UpstreamTls.DEFAULT), u.uri(), List.of(),
                    ForwardAuth.DEFAULT_TIMEOUT, null, null));
        }
        Map<String, Field> fields = walker.fields(field.value(), field.path(), "a URL or a mapping such as "
                + EXAMPLE, KEYS);
        Optional<String> preset = Optional.ofNullable(fields.get("preset"))
                .flatMap(f -> values.word(f, "preset", PRESETS, Map.of("authelia4", "authelia", "goauthentik",
                        "authentik")));
        Field urlField = fields.get("url");
        if (urlField == null) {
            walker.error(field.keyNode(), field.path(), "missing \"url\": the auth server, as in " + EXAMPLE);
        }
        Optional<Target> url = Optional.ofNullable(urlField).flatMap(this::url);
        Optional<List<String>> copy = Optional.ofNullable(fields.get("copy_headers")).map(this::headerNames)
                .orElse(Optional.of(List.of()));
        Optional<Duration> timeout = Optional.ofNullable(fields.get("timeout")).map(values::duration)
                .orElse(Optional.of(ForwardAuth.DEFAULT_TIMEOUT));
        Field tlsField = fields.get("tls");
        Optional<UpstreamTls> tls = tlsField == null ? Optional.of(UpstreamTls.DEFAULT)
                : new UpstreamTlsReader(walker, values, baseDir).read(tlsField, UpstreamTls.DEFAULT);
        if (tlsField != null && url.isPresent() && url.get().server().scheme() != UpstreamScheme.HTTPS) {
            walker.error(tlsField.keyNode(), tlsField.path(), "tls: is for an https:// auth server; this one is "
                    + "plain http://");
            return Optional.empty();
        }
        if (url.isEmpty() || copy.isEmpty() || timeout.isEmpty() || tls.isEmpty()
                || fields.containsKey("preset") && preset.isEmpty()) {
            return Optional.empty();
        }
        Preset defaults = preset.map(DEFAULTS::get).orElse(null);
        String uri = url.get().uri();
        List<String> headers = copy.get();
        String outpost = null;
        if (defaults != null) {
            uri = url.get().pathGiven() ? uri : defaults.uri();
            headers = fields.containsKey("copy_headers") ? headers : defaults.copyHeaders();
            outpost = defaults.outpostPath();
        }
        return Optional.of(new ForwardAuth(verified(url.get().server(), tls.get()), uri, headers, timeout.get(),
                preset.orElse(null), outpost));
    }

    /**
     * An https:// auth server with its TLS settings: by default verified against the system's trust store by its
     * name, as an https:// backend is; a plain one as it is.
     */
    private static UpstreamAddress verified(UpstreamAddress server, UpstreamTls tls) {
        return server.scheme() == UpstreamScheme.HTTPS ? server.withTls(tls) : server;
    }

    /** The server, the path and query asked on it, and whether the URL gave a path at all. */
    record Target(UpstreamAddress server, String uri, boolean pathGiven) {
    }

    private Optional<Target> url(Field field) {
        return walker.text(field.value(), field.path(), "the auth server's URL, such as "
                        + "http://authelia:9091/api/authz/forward-auth", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> target(text)));
    }

    static Target target(String text) throws BadValue {
        String s = text.strip();
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            throw new BadValue("\"" + s + "\" is not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getRawAuthority() == null) {
            throw new BadValue("the auth server is an http:// or https:// URL such as "
                    + "http://authelia:9091/api/authz/forward-auth; got \"" + s + "\"");
        }
        if (uri.getRawFragment() != null) {
            throw new BadValue("an auth server URL has no #fragment");
        }
        UpstreamAddress server = Upstreams.parse(scheme + "://" + uri.getRawAuthority());
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        boolean given = !path.isEmpty() && !path.equals("/");
        String target = (path.isEmpty() ? "/" : path) + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return new Target(server, target, given);
    }

    /** Header names: one or a list; tokens, none given twice. */
    private Optional<List<String>> headerNames(Field field) {
        List<Field> items = new ArrayList<>();
        if (field.value() instanceof SequenceNode list) {
            for (int i = 0; i < list.getValue().size(); i++) {
                items.add(new Field(field.key(), field.keyNode(), list.getValue().get(i), field.path().index(i)));
            }
        } else if (!NodeWalker.isNull(field.value())) {
            items.add(field);
        }
        Map<String, String> names = new LinkedHashMap<>();
        boolean ok = true;
        for (Field item : items) {
            Optional<String> name = walker.text(item.value(), item.path(), "a header name such as Remote-User",
                    NodeWalker.STRING).flatMap(t -> values.parse(item.value(), item.path(), () -> headerName(t)));
            if (name.isPresent() && names.putIfAbsent(name.get().toLowerCase(Locale.ROOT), name.get()) != null) {
                walker.error(item.value(), item.path(), "\"" + name.get() + "\" is listed twice");
                ok = false;
            }
            ok &= name.isPresent();
        }
        return ok ? Optional.of(List.copyOf(names.values())) : Optional.empty();
    }

    private static String headerName(String text) throws BadValue {
        String name = text.strip();
        if (name.isEmpty() || !name.chars().allMatch(c -> HeaderRules.isTokenChar((char) c))) {
            throw new BadValue("\"" + text + "\" is not a header name (letters, digits and !#$%&'*+-.^_`|~)");
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (List.of("host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer",
                "keep-alive", "proxy-connection").contains(lower)) {
            throw new BadValue(name + " cannot be copied onto a request");
        }
        return name;
    }
}
