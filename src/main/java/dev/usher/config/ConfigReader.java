package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.Tag;

/**
 * Reads the top of the file and the global sections ({@code listen}, {@code data}, {@code timeouts},
 * {@code limits}, {@code trusted_proxies}), then hands {@code sites} to {@link SitesReader}. Absent settings take
 * their defaults; a section left empty ({@code timeouts:} with nothing under it) counts as absent.
 */
final class ConfigReader {
    static final ListenAddress DEFAULT_HTTP = new ListenAddress("", 80);
    static final ListenAddress DEFAULT_HTTPS = new ListenAddress("", 443);
    private static final Set<String> OFF = Set.of("off", "none", "disabled", "no");

    private static final Keys TOP = Keys.of("listen", "data", "timeouts", "limits", "sites", "trusted_proxies", "email",
                    "acme", "admin", "access_log", "http3", "docker", "streams", "error_pages", "crowdsec", "storage")
            .withAliases(Map.ofEntries(Map.entry("listeners", "listen"), Map.entry("data_dir", "data"),
                    Map.entry("datadir", "data"), Map.entry("fleet", "storage"), Map.entry("shared_storage", "storage"), Map.entry("hosts", "sites"),
                    Map.entry("servers", "sites"), Map.entry("trusted_proxy", "trusted_proxies"),
                    Map.entry("trusted", "trusted_proxies"), Map.entry("trusted_ips", "trusted_proxies"),
                    Map.entry("trusted_networks", "trusted_proxies"), Map.entry("proxies", "trusted_proxies"),
                    Map.entry("real_ip_from", "trusted_proxies"), Map.entry("set_real_ip_from", "trusted_proxies"),
                    Map.entry("contact", "email"), Map.entry("acme_email", "email"), Map.entry("ca", "acme"),
                    Map.entry("acme_ca", "acme"), Map.entry("certificates", "acme"), Map.entry("le", "acme"),
                    Map.entry("letsencrypt", "acme"),
                    Map.entry("admin_api", "admin"), Map.entry("api", "admin"), Map.entry("dashboard", "admin"),
                    Map.entry("accesslog", "access_log"), Map.entry("access_logs", "access_log"),
                    Map.entry("log", "access_log"), Map.entry("logs", "access_log"),
                    Map.entry("quic", "http3"), Map.entry("h3", "http3"), Map.entry("http_3", "http3"),
                    Map.entry("podman", "docker"), Map.entry("containers", "docker"), Map.entry("labels", "docker"),
                    Map.entry("discovery", "docker"), Map.entry("docker_socket", "docker"),
                    Map.entry("stream", "streams"), Map.entry("tcp", "streams"), Map.entry("udp", "streams"),
                    Map.entry("ports", "streams"), Map.entry("layer4", "streams"), Map.entry("l4", "streams"),
                    Map.entry("errors", "error_pages"), Map.entry("error_page", "error_pages"),
                    Map.entry("custom_errors", "error_pages"), Map.entry("crowdsec_bouncer", "crowdsec"),
                    Map.entry("bouncer", "crowdsec"), Map.entry("lapi", "crowdsec"), Map.entry("bans", "crowdsec")))
            .withMisplaced(misplacedAtTop());
    private static final Keys LISTEN = Keys.of("http", "https", "proxy_protocol")
            .withAliases(Map.of("tls", "https", "ssl", "https", "plain", "http", "proxy", "proxy_protocol",
                    "accept_proxy", "proxy_protocol", "proxy_protocol_from", "proxy_protocol", "load_balancers",
                    "proxy_protocol"));
    private static final Keys ADMIN = Keys.of("listen", "password", "site")
            .withSynonyms(Map.of("secret", "password"))
            .withAliases(Map.of("address", "listen", "bind", "listen", "token", "password", "api_key", "password",
                    "host", "site", "domain", "site", "name", "site", "hostname", "site"));
    /** The largest request the admin site forwards: a backup archive being restored. */
    static final long ADMIN_SITE_MAX_BODY = 64L << 20;
    private static final Keys TIMEOUTS = Keys.of("connect", "response", "header", "idle", "shutdown")
            .withAliases(Map.of("dial", "connect", "keepalive", "idle", "keep_alive", "idle", "grace", "shutdown",
                    "shutdown_grace", "shutdown", "drain", "shutdown"))
            .withMisplaced(Map.of(
                    "read", "\"read\" can only be set per site, under timeouts: in a site",
                    "write", "\"write\" can only be set per site, under timeouts: in a site",
                    "websocket", "\"websocket\" can only be set per site, under timeouts: in a site"));
    private static final Keys LIMITS = Keys.of("header_size", "max_body", "connections")
            .withAliases(Map.of("max_header_size", "header_size", "body_size", "max_body",
                    "max_body_size", "max_body", "max_connections", "connections"));

    private final NodeWalker walker;
    private final Values values;
    private final HostEnvironment env;
    private final Path baseDir;

    /** {@code baseDir}: the config file's folder, which relative paths in it are taken from. */
    ConfigReader(NodeWalker walker, HostEnvironment env, Path baseDir) {
        this.walker = walker;
        this.values = new Values(walker);
        this.env = env;
        this.baseDir = baseDir;
    }

    /** Reads the whole file; {@code root} is empty for a file with no content. */
    UsherConfig read(Optional<Node> root, String source) {
        Map<String, Field> top = root.filter(n -> !NodeWalker.isNull(n))
                .map(n -> walker.fields(n, YamlPath.ROOT,
                        "a mapping of settings (" + String.join(", ", TOP.allowed()) + ")", TOP))
                .orElse(Map.of());
        Map<String, Field> listenFields = section(top.get("listen"))
                .map(f -> walker.fields(f.value(), f.path(), "a mapping such as {http: \":80\", https: \":443\"}",
                        LISTEN))
                .orElse(Map.of());
        Listen listen = new Listen(
                Optional.ofNullable(listenFields.get("http")).flatMap(this::listenAddress).orElse(DEFAULT_HTTP),
                listenFields.containsKey("https") ? httpsAddress(listenFields.get("https")) : DEFAULT_HTTPS,
                Optional.ofNullable(top.get("http3")).flatMap(values::bool).orElse(true),
                section(listenFields.get("proxy_protocol")).flatMap(f -> values.cidrs(f, false, "list the load "
                        + "balancers' addresses, or remove proxy_protocol:")).orElse(List.of()));
        Path data = Optional.ofNullable(top.get("data")).flatMap(this::dataDir).orElseGet(env::defaultDataDir);
        Timeouts timeouts = section(top.get("timeouts")).map(this::timeouts).orElse(Timeouts.DEFAULTS);
        Limits limits = section(top.get("limits")).map(this::limits).orElse(Limits.DEFAULTS);
        AccessLogSetting accessLog = top.containsKey("access_log") ? accessLog(top.get("access_log"))
                : AccessLogSetting.OFF;
        AcmeReader acmeReader = new AcmeReader(walker, values, baseDir, env);
        AcmeSettings acme = acmeReader.read(section(top.get("email")), section(top.get("acme")));
        ErrorPageSet errorPages = section(top.get("error_pages"))
                .map(f -> new PagesReader(walker, values, baseDir).errorPages(f)).orElse(ErrorPageSet.NONE);
        List<Site> sites = section(top.get("sites"))
                .map(f -> new SitesReader(walker, values, baseDir, listen.httpsOn(),
                        new DnsReader(walker, values, baseDir, env), acmeReader.dnsWritten())
                        .read(f, timeouts, limits, accessLog.on(), errorPages))
                .orElse(List.of());
        List<Cidr> trustedProxies = section(top.get("trusted_proxies"))
                .flatMap(f -> values.cidrs(f, true, "")).orElse(List.of());
        AdminSetting adminSetting = top.containsKey("admin") ? admin(top.get("admin"))
                : new AdminSetting(UsherConfig.DEFAULT_ADMIN, null, null);
        ListenAddress admin = adminSetting.listen();
        if (adminSetting.site() != null) {
            sites = withAdminSite(sites, adminSetting, timeouts, listen.httpsOn());
        }
        DockerSetting docker = top.containsKey("docker")
                ? new DockerReader(walker, values, baseDir).read(top.get("docker")) : null;
        List<StreamSetting> streams = section(top.get("streams"))
                .map(f -> new StreamsReader(walker, values).read(f, timeouts, accessLog.on(),
                        new ListenerClashes(walker, listen, admin)))
                .orElse(List.of());
        CrowdSecSetting crowdsec = section(top.get("crowdsec"))
                .flatMap(f -> new CrowdSecReader(walker, values, new SecretReader(walker, values, baseDir, env)).read(f)).orElse(null);
        StorageSetting storage = section(top.get("storage"))
                .flatMap(f -> new StorageReader(walker, values, new SecretReader(walker, values, baseDir, env), baseDir)
                        .read(f)).orElse(null);
        return new UsherConfig(source, listen, data, timeouts, limits, sites, trustedProxies, acme, admin,
                accessLog, adminSetting.secret(), docker, List.of(), streams, errorPages, crowdsec, storage);
    }

    /** Keys of other sections written at the top, each with where it belongs. */
    private static Map<String, String> misplacedAtTop() {
        Map<String, String> misplaced = new HashMap<>(Map.of(
                "http", "\"http\" belongs under listen:",
                "connect", "\"connect\" belongs under timeouts:",
                "response", "\"response\" belongs under timeouts:",
                "header", "\"header\" belongs under timeouts:",
                "idle", "\"idle\" belongs under timeouts:",
                "header_size", "\"header_size\" belongs under limits:",
                "max_body", "\"max_body\" belongs under limits: (or in a site)",
                "connections", "\"connections\" belongs under limits:",
                "proxy_protocol", "\"proxy_protocol\" belongs under listen: (PROXY headers from load balancers in "
                        + "front) or in a stream or passthrough site (PROXY headers to its backends)"));
        for (String key : List.of("to", "redirect", "respond", "policy", "health", "headers", "request_headers",
                "security_headers", "gzip", "compress", "basic_auth", "allow", "deny", "rate_limit", "root", "index",
                "browse", "spa", "forward_auth", "maintenance", "wait_for_backend")) {
            misplaced.put(key, "\"" + key + "\" is a site setting; put it under a site in sites:");
        }
        return Map.copyOf(misplaced);
    }

    /** The field when present with something in it; a section written with no value counts as absent. */
    private static Optional<Field> section(Field field) {
        return Optional.ofNullable(field).filter(f -> !NodeWalker.isNull(f.value()));
    }

    private Optional<ListenAddress> listenAddress(Field field) {
        return walker.text(field.value(), field.path(), "an address such as \":80\" or \"127.0.0.1:8080\"",
                        Set.of(Tag.STR, Tag.ENV_TAG, Tag.INT))
                .flatMap(text -> values.parse(field.value(), field.path(), () -> ListenAddresses.parse(text)));
    }

    /** The HTTPS address, or null for {@code off} (or {@code false}). */
    private ListenAddress httpsAddress(Field field) {
        return addressOrOff(field, "\":443\"");
    }

    /**
     * An address, or null for {@code off} ({@code false}, {@code none}). After an error the value does not matter:
     * the load fails.
     */
    private ListenAddress addressOrOff(Field field, String example) {
        Node node = field.value();
        if (node instanceof ScalarNode scalar && (Tag.BOOL.equals(scalar.getTag())
                || OFF.contains(scalar.getValue().strip().toLowerCase(java.util.Locale.ROOT)))) {
            if (scalar.getValue().equalsIgnoreCase("true")) {
                walker.error(node, field.path(), "write an address such as " + example + ", or off");
            }
            return null;
        }
        return listenAddress(field).orElse(null);
    }

    /**
     * Where the admin endpoint listens (null: off), the bcrypt hash of its password (null: none), and the
     * {@code site:} field that serves it over HTTPS under a name of its own (null: none).
     */
    private record AdminSetting(ListenAddress listen, String secret, Field site) {
    }

    /**
     * The sites plus the admin site: an HTTPS site (certificate as for any other name) whose requests Usher forwards
     * over loopback to its own admin endpoint, which then sees {@code X-Forwarded-Proto: https} from a loopback peer
     * and marks its session cookie Secure. Needs a password, a fixed admin port and HTTPS on.
     */
    private List<Site> withAdminSite(List<Site> sites, AdminSetting admin, Timeouts timeouts, boolean httpsOn) {
        Field field = admin.site();
        Optional<SiteNames.SiteName> parsed = walker.text(field.value(), field.path(), "a host name such as "
                + "admin.example.com", NodeWalker.STRING).flatMap(text -> values.parse(field.value(), field.path(),
                () -> SiteNames.parse(text)));
        if (parsed.isEmpty()) {
            return sites;
        }
        String name = parsed.get().name();
        String problem = null;
        if (parsed.get().plainHttp() || !httpsOn) {
            problem = "the admin site is served over HTTPS only (a password over plain HTTP could be read on the way)";
        } else if (name.startsWith("*.")) {
            problem = "the admin site needs one name, not a wildcard";
        } else if (admin.secret() == null) {
            problem = "serving the admin endpoint as a site needs a password: add password: \"<bcrypt hash>\" "
                    + "(usher hash-password makes one)";
        } else if (admin.listen() == null || admin.listen().port() == 0) {
            problem = "the admin site forwards to the admin endpoint, which then needs a fixed port (listen: "
                    + "\"127.0.0.1:2019\")";
        } else if (sites.stream().anyMatch(s -> s.name().equals(name))) {
            problem = "\"" + name + "\" is also a site in sites:; the admin site needs a name of its own";
        }
        if (problem != null) {
            walker.error(field.value(), field.path(), problem);
            return sites;
        }
        String host = admin.listen().host();
        String target = host.isEmpty() || host.equals("0.0.0.0") ? "127.0.0.1" : host.equals("::") ? "::1" : host;
        List<Site> all = new java.util.ArrayList<>(sites);
        all.add(new Site(name, false, List.of(new UpstreamAddress(target, admin.listen().port())),
                ADMIN_SITE_MAX_BODY, timeouts.connect(), timeouts.response(), ErrorList.line(field.value()),
                ErrorList.column(field.value()), SiteTraffic.DEFAULTS.withKeepAliveIdle(timeouts.idle()),
                TlsPolicy.auto(name), false));
        return List.copyOf(all);
    }

    /**
     * {@code admin: off}, {@code admin: "127.0.0.1:2019"} or {@code admin: {listen: ..., secret: BCRYPT}}. Without
     * a secret only a loopback address is accepted (reach it through an SSH tunnel); with one, any address, and
     * every request must carry the secret.
     */
    private AdminSetting admin(Field field) {
        Node node = field.value();
        if (NodeWalker.isNull(node)) {
            return new AdminSetting(UsherConfig.DEFAULT_ADMIN, null, null);
        }
        Field address = field;
        String secret = null;
        boolean secretGiven = false;
        Field site = null;
        if (node instanceof org.snakeyaml.engine.v2.nodes.MappingNode) {
            Map<String, Field> fields = walker.fields(node, field.path(),
                    "a mapping such as {listen: \"127.0.0.1:2019\", password: \"$2y$10$...\", site: admin.example.com}",
                    ADMIN);
            site = fields.get("site");
            Field secretField = fields.get("password");
            if (secretField != null) {
                secretGiven = true;
                secret = walker.text(secretField.value(), secretField.path(), "a bcrypt hash in quotes, such as "
                        + "\"$2y$10$...\" (usher hash-password makes one)", NodeWalker.STRING)
                        .flatMap(text -> values.parse(secretField.value(), secretField.path(),
                                () -> AccessReader.checkHash(text)))
                        .orElse(null);
            }
            address = fields.get("listen");
            if (address == null) {
                return new AdminSetting(UsherConfig.DEFAULT_ADMIN, secret, site);
            }
        }
        ListenAddress listen = addressOrOff(address, "\"127.0.0.1:2019\"");
        if (listen == null) {
            return new AdminSetting(null, null, site);
        }
        boolean loopback = listen.host().equals("::1") || listen.host().startsWith("127.");
        if (!loopback && !secretGiven) {
            walker.error(address.value(), address.path(), "the admin endpoint listens on a loopback address only "
                    + "(127.0.0.1 or [::1]) unless it has a password: add password: \"<bcrypt hash>\" (usher "
                    + "hash-password makes one), or reach it through an SSH tunnel");
        }
        return new AdminSetting(listen, secret, site);
    }

    /**
     * {@code access_log: off} (or false, none), {@code on} (or true, stdout, -) for standard output, or a file path
     * (relative to the config file's folder; {@code ~} for the home directory).
     */
    private AccessLogSetting accessLog(Field field) {
        Node node = field.value();
        if (NodeWalker.isNull(node)) {
            return AccessLogSetting.OFF;
        }
        if (node instanceof ScalarNode scalar && Tag.BOOL.equals(scalar.getTag())) {
            return scalar.getValue().equalsIgnoreCase("true") ? AccessLogSetting.STDOUT : AccessLogSetting.OFF;
        }
        Optional<String> text = walker.text(node, field.path(), "off, on, stdout or a file path", NodeWalker.STRING);
        if (text.isEmpty()) {
            return AccessLogSetting.OFF;
        }
        String word = text.get().strip();
        String lower = word.toLowerCase(java.util.Locale.ROOT);
        if (OFF.contains(lower) || lower.equals("false")) {
            return AccessLogSetting.OFF;
        }
        if (lower.equals("on") || lower.equals("true") || lower.equals("yes") || lower.equals("stdout")
                || lower.equals("-")) {
            return AccessLogSetting.STDOUT;
        }
        if (word.isEmpty()) {
            walker.error(node, field.path(), "expected off, on, stdout or a file path");
            return AccessLogSetting.OFF;
        }
        return values.parse(node, field.path(), () -> baseDir.resolve(path(env.expandHome(word))))
                .map(p -> new AccessLogSetting(true, p)).orElse(AccessLogSetting.OFF);
    }

    private Optional<Path> dataDir(Field field) {
        Node node = field.value();
        if (node instanceof ScalarNode scalar && NodeWalker.isNull(node) && scalar.getValue().equals("~")) {
            walker.error(node, field.path(), "a lone ~ means nothing in YAML; write \"~\" in quotes for the home "
                    + "directory, or a full path");
            return Optional.empty();
        }
        Optional<String> text = walker.text(node, field.path(), "a directory path", NodeWalker.STRING);
        if (text.isPresent() && text.get().isBlank()) {
            walker.error(node, field.path(), "the data directory is empty; give a path, or leave data: out for the "
                    + "default");
            return Optional.empty();
        }
        return text.flatMap(t -> values.parse(node, field.path(), () -> baseDir.resolve(path(env.expandHome(t)))));
    }

    private static Path path(String text) throws BadValue {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new BadValue("invalid path \"" + text + "\": " + e.getReason());
        }
    }

    private Timeouts timeouts(Field section) {
        Map<String, Field> fields = walker.fields(section.value(), section.path(),
                "a mapping of timeouts (" + String.join(", ", TIMEOUTS.allowed()) + ")", TIMEOUTS);
        Timeouts d = Timeouts.DEFAULTS;
        return new Timeouts(duration(fields, "connect", d.connect()), duration(fields, "response", d.response()),
                duration(fields, "header", d.header()), duration(fields, "idle", d.idle()),
                shutdownGrace(fields.get("shutdown")));
    }

    private Duration shutdownGrace(Field field) {
        if (field == null) {
            return Timeouts.DEFAULT_SHUTDOWN;
        }
        Optional<Duration> grace = values.duration(field);
        if (grace.isPresent() && grace.get().compareTo(Timeouts.MAX_SHUTDOWN) > 0) {
            walker.error(field.value(), field.path(), "too long; the shutdown grace period is at most 1h");
            return Timeouts.DEFAULT_SHUTDOWN;
        }
        return grace.orElse(Timeouts.DEFAULT_SHUTDOWN);
    }

    private Duration duration(Map<String, Field> fields, String key, Duration fallback) {
        return Optional.ofNullable(fields.get(key)).flatMap(values::duration).orElse(fallback);
    }

    private Limits limits(Field section) {
        Map<String, Field> fields = walker.fields(section.value(), section.path(),
                "a mapping of limits (" + String.join(", ", LIMITS.allowed()) + ")", LIMITS);
        Limits d = Limits.DEFAULTS;
        int headerSize = Optional.ofNullable(fields.get("header_size"))
                .flatMap(f -> values.size(f, 1, Integer.MAX_VALUE)).map(Long::intValue).orElse(d.headerSize());
        long maxBody = Optional.ofNullable(fields.get("max_body"))
                .flatMap(f -> values.size(f, 0, Long.MAX_VALUE)).orElse(d.maxBody());
        int connections = Optional.ofNullable(fields.get("connections"))
                .flatMap(values::positiveInt).orElse(d.connections());
        return new Limits(headerSize, maxBody, connections);
    }
}
