package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import dev.usher.json.JsonReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads a {@code dns:} mapping ({@code acme.dns} or a site's {@code tls.dns}) into {@link DnsSettings}: the
 * {@code provider} first, then the settings every provider has and those of that provider. A setting of another
 * provider is an error that names the provider it belongs to.
 */
final class DnsReader {
    private static final List<String> PROVIDERS = List.of("rfc2136", "cloudflare", "acme-dns", "exec");
    private static final Map<String, String> PROVIDER_ALIASES = Map.ofEntries(Map.entry("nsupdate", "rfc2136"),
            Map.entry("rfc-2136", "rfc2136"), Map.entry("bind", "rfc2136"), Map.entry("bind9", "rfc2136"),
            Map.entry("ddns", "rfc2136"), Map.entry("dynamic", "rfc2136"), Map.entry("knot", "rfc2136"),
            Map.entry("powerdns", "rfc2136"), Map.entry("cf", "cloudflare"), Map.entry("acmedns", "acme-dns"),
            Map.entry("acme_dns", "acme-dns"), Map.entry("hook", "exec"), Map.entry("script", "exec"),
            Map.entry("command", "exec"), Map.entry("shell", "exec"), Map.entry("manual", "exec"));
    private static final List<String> COMMON = List.of("provider", "zone", "propagation_timeout", "resolvers",
            "nameserver_port");
    private static final Map<String, List<String>> PROVIDER_KEYS = Map.of(
            "rfc2136", List.of("server", "key_file", "key_name", "key_algorithm", "secret", "secret_file"),
            "cloudflare", List.of("token", "token_file", "zone_id", "api"),
            "acme-dns", List.of("server", "account_file", "username", "password", "password_file", "fulldomain"),
            "exec", List.of("command", "timeout"));
    private static final Map<String, String> KEY_ALIASES = Map.ofEntries(Map.entry("type", "provider"),
            Map.entry("name", "provider"), Map.entry("timeout_propagation", "propagation_timeout"),
            Map.entry("propagation", "propagation_timeout"), Map.entry("wait", "propagation_timeout"),
            Map.entry("resolver", "resolvers"), Map.entry("dns_resolvers", "resolvers"),
            Map.entry("nameservers", "resolvers"), Map.entry("port", "nameserver_port"),
            Map.entry("nameserver", "server"), Map.entry("primary", "server"), Map.entry("master", "server"),
            Map.entry("host", "server"), Map.entry("url", "server"), Map.entry("tsig_key", "key_file"),
            Map.entry("keyfile", "key_file"), Map.entry("tsig_key_file", "key_file"),
            Map.entry("tsig_name", "key_name"), Map.entry("tsig_algorithm", "key_algorithm"),
            Map.entry("algorithm", "key_algorithm"), Map.entry("tsig_secret", "secret"),
            Map.entry("api_token", "token"), Map.entry("cf_api_token", "token"), Map.entry("api_key", "token"),
            Map.entry("zoneid", "zone_id"), Map.entry("api_url", "api"), Map.entry("endpoint", "api"),
            Map.entry("user", "username"), Map.entry("key", "password"), Map.entry("account", "account_file"),
            Map.entry("credentials", "account_file"), Map.entry("storage", "account_file"),
            Map.entry("full_domain", "fulldomain"), Map.entry("domain", "fulldomain"),
            Map.entry("program", "command"), Map.entry("path", "command"), Map.entry("script", "command"));
    private static final List<String> TSIG_ALGORITHMS = List.of("hmac-sha256", "hmac-sha384", "hmac-sha512",
            "hmac-sha224", "hmac-sha1", "hmac-md5");
    private static final Duration MAX_PROPAGATION = Duration.ofHours(1);
    private static final Duration MAX_EXEC = Duration.ofMinutes(10);

    private final NodeWalker walker;
    private final Values values;
    private final Path baseDir;
    private final HostEnvironment env;
    private final SecretReader secrets;

    DnsReader(NodeWalker walker, Values values, Path baseDir, HostEnvironment env) {
        this.walker = walker;
        this.values = values;
        this.baseDir = baseDir;
        this.env = env;
        this.secrets = new SecretReader(walker, values, baseDir, env);
    }

    /** The settings, or nothing when they have errors (all of them recorded). */
    Optional<DnsSettings> read(Field dns) {
        if (!(dns.value() instanceof MappingNode)) {
            walker.typeError(dns.value(), dns.path(), "a mapping such as {provider: cloudflare, token_file: FILE}");
            return Optional.empty();
        }
        Optional<String> provider = provider(dns);
        if (provider.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Field> fields = walker.fields(dns.value(), dns.path(), "the DNS provider's settings",
                keysOf(provider.get()));
        int errors = walker.errorCount();
        String zone = Optional.ofNullable(fields.get("zone")).flatMap(this::zone).orElse(null);
        Duration propagation = Optional.ofNullable(fields.get("propagation_timeout"))
                .flatMap(f -> bounded(f, MAX_PROPAGATION, "an order is given up when it takes longer"))
                .orElse(DnsSettings.DEFAULT_PROPAGATION_TIMEOUT);
        List<DnsServer> resolvers = Optional.ofNullable(fields.get("resolvers")).flatMap(this::resolvers)
                .orElse(List.of());
        int nameserverPort = Optional.ofNullable(fields.get("nameserver_port"))
                .flatMap(f -> values.integer(f, "a port number such as 53", 1, 65535)).orElse(DnsServer.DEFAULT_PORT);
        Optional<? extends DnsSettings.Provider> settings = switch (provider.get()) {
            case "rfc2136" -> rfc2136(dns, fields);
            case "cloudflare" -> cloudflare(dns, fields);
            case "acme-dns" -> acmeDns(dns, fields);
            default -> exec(dns, fields);
        };
        if (settings.isEmpty() || walker.errorCount() != errors) {
            return Optional.empty();
        }
        return Optional.of(new DnsSettings(settings.get(), zone, propagation, resolvers, nameserverPort));
    }

    private Optional<String> provider(Field dns) {
        Field provider = null;
        for (Field f : walker.entries(dns.value(), dns.path(), "a mapping", "key")) {
            if (f.key().equals("provider")) {
                provider = f;
            }
        }
        if (provider == null) {
            walker.error(dns.keyNode(), dns.path(), "missing \"provider\": one of " + String.join(", ", PROVIDERS));
            return Optional.empty();
        }
        return values.word(provider, "DNS provider", PROVIDERS, PROVIDER_ALIASES);
    }

    /** The common keys and the provider's own; the other providers' keys are reported as belonging to them. */
    private static Keys keysOf(String provider) {
        List<String> allowed = new ArrayList<>(COMMON);
        allowed.addAll(PROVIDER_KEYS.get(provider));
        Map<String, String> misplaced = new HashMap<>();
        for (String other : PROVIDERS) {
            for (String key : PROVIDER_KEYS.get(other)) {
                if (!allowed.contains(key)) {
                    misplaced.putIfAbsent(key, "\"" + key + "\" is a setting of the " + other + " provider; "
                            + provider + " takes " + String.join(", ", PROVIDER_KEYS.get(provider)));
                }
            }
        }
        return Keys.of(allowed.toArray(String[]::new)).withAliases(KEY_ALIASES).withMisplaced(misplaced);
    }

    private Optional<DnsSettings.Rfc2136> rfc2136(Field dns, Map<String, Field> fields) {
        Field serverField = fields.get("server");
        if (serverField == null) {
            walker.error(dns.keyNode(), dns.path(), "missing \"server\": the primary DNS server that accepts the "
                    + "updates, e.g. server: 192.0.2.53 or ns1.example.com:53");
        }
        Optional<DnsServer> server = Optional.ofNullable(serverField).flatMap(this::server);
        Field keyFile = fields.get("key_file");
        Optional<String> name = Optional.ofNullable(fields.get("key_name")).flatMap(f -> walker.text(f.value(),
                f.path(), "the TSIG key's name", NodeWalker.STRING)).map(String::strip);
        Optional<String> algorithm = Optional.ofNullable(fields.get("key_algorithm"))
                .flatMap(f -> values.word(f, "TSIG algorithm", TSIG_ALGORITHMS, Map.of("sha256", "hmac-sha256",
                        "hmac-sha-256", "hmac-sha256", "hmac_sha256", "hmac-sha256", "sha512", "hmac-sha512")));
        if (keyFile != null) {
            if (SecretReader.given(fields, "secret")) {
                Field extra = fields.getOrDefault("secret", fields.get("secret_file"));
                walker.error(extra.keyNode(), extra.path(), "the key file already holds the secret; give key_file "
                        + "or secret, not both");
                return Optional.empty();
            }
            return tsigKeyFile(keyFile, name.orElse(null)).flatMap(key -> server.map(s -> new DnsSettings.Rfc2136(s,
                    key.name(), algorithm.orElse(key.algorithm()), key.secret())));
        }
        if (name.isEmpty()) {
            walker.error(dns.keyNode(), dns.path(), "missing the TSIG key: key_file: FILE (as tsig-keygen writes "
                    + "it), or key_name: NAME with secret_file: FILE or secret: ${VARIABLE}");
            return Optional.empty();
        }
        Optional<Secret> secret = secrets.read(fields, dns, "secret", "the TSIG key's secret")
                .flatMap(s -> base64(s, fields.getOrDefault("secret", fields.get("secret_file"))));
        return secret.flatMap(s -> server.map(srv -> new DnsSettings.Rfc2136(srv, name.get(),
                algorithm.orElse("hmac-sha256"), s)));
    }

    private Optional<Secret> base64(Secret secret, Field field) {
        try {
            Base64.getDecoder().decode(secret.reveal());
            return Optional.of(secret);
        } catch (IllegalArgumentException e) {
            walker.error(field.value(), field.path(), "the TSIG secret from " + secret.origin() + " is not base64 "
                    + "(tsig-keygen prints one: the text in quotes after \"secret\")");
            return Optional.empty();
        }
    }

    /** One key of a BIND key file ({@code key "NAME" { algorithm ALG; secret "BASE64"; };}). */
    private Optional<TsigKeyFile.Key> tsigKeyFile(Field field, String wanted) {
        return walker.text(field.value(), field.path(), "a TSIG key file as tsig-keygen writes it", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    String content = SecretReader.read(path, "the TSIG key");
                    return TsigKeyFile.pick(TsigKeyFile.parse(content, path), wanted, path, TSIG_ALGORITHMS);
                }));
    }

    private Optional<DnsSettings.Cloudflare> cloudflare(Field dns, Map<String, Field> fields) {
        Optional<Secret> token = secrets.read(fields, dns, "token", "the Cloudflare API token");
        String zoneId = Optional.ofNullable(fields.get("zone_id")).flatMap(f -> walker.text(f.value(), f.path(),
                "the zone's id (Cloudflare shows it on the zone's overview page)", NodeWalker.STRING)
                .flatMap(text -> values.parse(f.value(), f.path(), () -> {
                    String id = text.strip();
                    if (id.isEmpty() || !id.chars().allMatch(Character::isLetterOrDigit)) {
                        throw new BadValue("\"" + text + "\" is not a Cloudflare zone id (32 letters and digits)");
                    }
                    return id;
                }))).orElse(null);
        URI api = Optional.ofNullable(fields.get("api")).flatMap(f -> apiUrl(f, "the Cloudflare API"))
                .orElse(DnsSettings.Cloudflare.DEFAULT_API);
        return token.map(t -> new DnsSettings.Cloudflare(t, zoneId, api));
    }

    private Optional<DnsSettings.AcmeDns> acmeDns(Field dns, Map<String, Field> fields) {
        Field serverField = fields.get("server");
        if (serverField == null) {
            walker.error(dns.keyNode(), dns.path(), "missing \"server\": the acme-dns API, e.g. server: "
                    + "https://auth.acme-dns.io");
        }
        Optional<URI> server = Optional.ofNullable(serverField).flatMap(f -> apiUrl(f, "the acme-dns API"));
        Field accountFile = fields.get("account_file");
        if (accountFile != null) {
            for (String key : List.of("username", "password", "password_file", "fulldomain")) {
                if (fields.containsKey(key)) {
                    Field extra = fields.get(key);
                    walker.error(extra.keyNode(), extra.path(), "the account file already gives username, password "
                            + "and fulldomain; give account_file or these, not both");
                    return Optional.empty();
                }
            }
            return acmeDnsAccount(accountFile).flatMap(a -> server.map(s -> new DnsSettings.AcmeDns(s, a.username(),
                    a.password(), a.fulldomain())));
        }
        Optional<String> username = required(dns, fields, "username", "the account's username (X-Api-User)");
        Optional<String> fulldomain = required(dns, fields, "fulldomain",
                "the account's fulldomain, which _acme-challenge.NAME is a CNAME to")
                .flatMap(d -> values.parse(fields.get("fulldomain").value(), fields.get("fulldomain").path(),
                        () -> dnsName(d)));
        Optional<Secret> password = secrets.read(fields, dns, "password", "the acme-dns account's password");
        if (server.isEmpty() || username.isEmpty() || fulldomain.isEmpty() || password.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new DnsSettings.AcmeDns(server.get(), username.get(), password.get(), fulldomain.get()));
    }

    private Optional<String> required(Field parent, Map<String, Field> fields, String key, String what) {
        Field field = fields.get(key);
        if (field == null) {
            walker.error(parent.keyNode(), parent.path(), "missing \"" + key + "\": " + what);
            return Optional.empty();
        }
        return walker.text(field.value(), field.path(), what, NodeWalker.STRING).map(String::strip);
    }

    /** The answer of acme-dns's {@code /register}, saved as a file: {@code {"username", "password", "fulldomain"}}. */
    private record AcmeDnsAccount(String username, Secret password, String fulldomain) {
    }

    private Optional<AcmeDnsAccount> acmeDnsAccount(Field field) {
        return walker.text(field.value(), field.path(), "the JSON file acme-dns's /register answered with",
                NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    Path path = baseDir.resolve(text.strip());
                    String content = SecretReader.read(path, "the acme-dns account");
                    Object json;
                    try {
                        json = JsonReader.parse(content);
                    } catch (JsonReader.BadJson e) {
                        throw new BadValue(path + " is not JSON (" + e.getMessage() + "); save the answer of "
                                + "acme-dns's /register in it");
                    }
                    if (!(json instanceof Map<?, ?> map)) {
                        throw new BadValue(path + " should hold a JSON object with username, password and "
                                + "fulldomain (the answer of acme-dns's /register)");
                    }
                    List<String> missing = new ArrayList<>();
                    Map<String, String> got = new LinkedHashMap<>();
                    for (String key : List.of("username", "password", "fulldomain")) {
                        if (map.get(key) instanceof String s && !s.isBlank()) {
                            got.put(key, s.strip());
                        } else {
                            missing.add(key);
                        }
                    }
                    if (!missing.isEmpty()) {
                        throw new BadValue(path + " lacks " + String.join(", ", missing) + " (the answer of "
                                + "acme-dns's /register has them)");
                    }
                    return new AcmeDnsAccount(got.get("username"), new Secret(got.get("password"), "the file "
                            + path), dnsName(got.get("fulldomain")));
                }));
    }

    private Optional<DnsSettings.Exec> exec(Field dns, Map<String, Field> fields) {
        Field command = fields.get("command");
        if (command == null) {
            walker.error(dns.keyNode(), dns.path(), "missing \"command\": the program to call as COMMAND "
                    + "present|cleanup FQDN VALUE, e.g. command: /usr/local/bin/dns-hook");
            return Optional.empty();
        }
        Duration timeout = Optional.ofNullable(fields.get("timeout"))
                .flatMap(f -> bounded(f, MAX_EXEC, "a hook should return once the record is sent"))
                .orElse(DnsSettings.Exec.DEFAULT_TIMEOUT);
        return command(command).map(c -> new DnsSettings.Exec(c, timeout));
    }

    private Optional<List<String>> command(Field field) {
        List<String> words = new ArrayList<>();
        if (field.value() instanceof SequenceNode list) {
            for (int i = 0; i < list.getValue().size(); i++) {
                Optional<String> word = walker.text(list.getValue().get(i), field.path().index(i),
                        "the program or an argument", NodeWalker.STRING);
                if (word.isEmpty()) {
                    return Optional.empty();
                }
                words.add(word.get());
            }
            if (words.isEmpty()) {
                walker.error(list, field.path(), "the command is empty; give the program, then its arguments");
                return Optional.empty();
            }
        } else {
            Optional<String> word = walker.text(field.value(), field.path(), "a program, or a list: [program, "
                    + "arguments...]", NodeWalker.STRING);
            if (word.isEmpty()) {
                return Optional.empty();
            }
            words.add(word.get().strip());
        }
        Node at = field.value() instanceof SequenceNode list ? list.getValue().get(0) : field.value();
        return values.parse(at, field.path(), () -> {
            String program = words.get(0);
            if (program.isEmpty() || program.chars().anyMatch(Character::isWhitespace)
                    && !Files.isExecutable(baseDir.resolve(program))) {
                throw new BadValue("\"" + program + "\" is not one program; write the program and its arguments as "
                        + "a list, e.g. command: [/usr/local/bin/dns-hook, --zone, example.com]");
            }
            words.set(0, executable(program).toString());
            return List.copyOf(words);
        });
    }

    /** The program as a path: relative to the config's folder when it has a '/', else found on PATH. */
    private Path executable(String program) throws BadValue {
        if (program.indexOf('/') >= 0) {
            Path path = baseDir.resolve(program);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw new BadValue("cannot run " + path + ": " + (Files.exists(path) ? "not an executable file"
                        : "no such file"));
            }
            return path;
        }
        String searchPath = env.variables().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        for (String dir : searchPath.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir).resolve(program);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new BadValue("cannot find the program \"" + program + "\" on PATH; give its full path");
    }

    private Optional<String> zone(Field field) {
        return walker.text(field.value(), field.path(), "a DNS zone such as example.com", NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> dnsName(text)));
    }

    private static String dnsName(String text) throws BadValue {
        String name = text.strip().toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        HostNames.checkDnsName(name, true);
        return name;
    }

    private Optional<Duration> bounded(Field field, Duration max, String why) {
        Optional<Duration> d = values.duration(field);
        if (d.isPresent() && d.get().compareTo(max) > 0) {
            walker.error(field.value(), field.path(), "at most " + Durations.format(max) + "; " + why);
            return Optional.empty();
        }
        return d;
    }

    private Optional<DnsServer> server(Field field) {
        return walker.text(field.value(), field.path(), "a DNS server such as 192.0.2.53 or ns1.example.com:53",
                NodeWalker.STRING_OR_NUMBER).flatMap(text -> values.parse(field.value(), field.path(),
                () -> DnsServer.parse(text)));
    }

    private Optional<List<DnsServer>> resolvers(Field field) {
        List<Node> nodes = field.value() instanceof SequenceNode list ? list.getValue() : List.of(field.value());
        List<DnsServer> result = new ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            YamlPath path = field.value() instanceof SequenceNode ? field.path().index(i) : field.path();
            Optional<DnsServer> server = walker.text(node, path, "a resolver's IP address, e.g. 192.0.2.1 or "
                    + "127.0.0.53:53", NodeWalker.STRING).flatMap(text -> values.parse(node, path, () -> {
                        DnsServer s = DnsServer.parse(text);
                        if (!s.isIpLiteral()) {
                            throw new BadValue("a resolver is given by its IP address (finding \"" + s.host()
                                    + "\" would need a resolver)");
                        }
                        return s;
                    }));
            server.ifPresent(result::add);
            ok &= server.isPresent();
        }
        if (nodes.isEmpty()) {
            walker.error(field.value(), field.path(), "the list is empty; leave resolvers out to use the system's");
            return Optional.empty();
        }
        return ok ? Optional.of(List.copyOf(result)) : Optional.empty();
    }

    private static boolean isLoopback(String host) {
        String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        return h.equalsIgnoreCase("localhost") || h.equals("::1") || HostNames.isIpv4(h) && h.startsWith("127.");
    }

    /** An https:// URL, or http:// to this machine (a test server, an acme-dns on localhost). */
    private Optional<URI> apiUrl(Field field, String what) {
        return walker.text(field.value(), field.path(), "the URL of " + what, NodeWalker.STRING)
                .flatMap(text -> values.parse(field.value(), field.path(), () -> {
                    URI uri;
                    try {
                        uri = new URI(text.strip().replaceFirst("/+$", ""));
                    } catch (URISyntaxException e) {
                        throw new BadValue("\"" + text + "\" is not a URL: " + e.getReason());
                    }
                    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
                    if (uri.getHost() == null || !scheme.equals("https") && !scheme.equals("http")) {
                        throw new BadValue("expected the https:// URL of " + what + ", found \"" + text + "\"");
                    }
                    if (scheme.equals("http") && !isLoopback(uri.getHost())) {
                        throw new BadValue("credentials go to " + what + " over https:// only (plain http:// is "
                                + "accepted for this machine alone: localhost, 127.0.0.1, [::1])");
                    }
                    return uri;
                }));
    }
}
