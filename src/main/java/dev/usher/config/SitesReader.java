package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads {@code sites:}: each key a site name, each value either upstreams (one address, or a list) or a mapping of
 * site settings ({@code to}, {@code max_body}, {@code timeouts} and the traffic options {@link TrafficReader} reads).
 * Applies the global defaults, so every {@link Site} carries its effective values. Two keys that name the same site
 * once normalised are an error. A site forwards ({@code to}), serves a folder ({@code root}), redirects
 * ({@code redirect}) or answers itself ({@code respond}); the last three have no upstreams. The top-level
 * {@code error_pages:} go under each site's own.
 */
final class SitesReader {
    private static final String UPSTREAM = SiteParts.UPSTREAM;
    private static final Keys SITE = Keys.of("to", "root", "redirect", "respond", "paths", "max_body", "timeouts",
                    "policy", "health", "headers", "request_headers", "security_headers", "gzip", "basic_auth", "allow",
                    "deny", "rate_limit", "tls", "upstream_tls", "access_log", "passthrough", "proxy_protocol", "index",
                    "browse", "spa", "precompressed", "forward_auth", "error_pages", "maintenance", "wait_for_backend")
            .withSynonyms(Map.of("compress", "gzip"))
            .withAliases(Map.ofEntries(
                    Map.entry("upstream", "to"), Map.entry("upstreams", "to"), Map.entry("backend", "to"),
                    Map.entry("backends", "to"), Map.entry("proxy", "to"), Map.entry("target", "to"),
                    Map.entry("targets", "to"), Map.entry("reverse_proxy", "to"),
                    Map.entry("redir", "redirect"), Map.entry("redirect_to", "redirect"),
                    Map.entry("return", "respond"), Map.entry("static_response", "respond"),
                    Map.entry("answer", "respond"),
                    Map.entry("lb_policy", "policy"), Map.entry("load_balancing", "policy"),
                    Map.entry("balancing", "policy"), Map.entry("lb", "policy"),
                    Map.entry("health_check", "health"), Map.entry("health_checks", "health"),
                    Map.entry("healthcheck", "health"),
                    Map.entry("response_headers", "headers"), Map.entry("header", "headers"),
                    Map.entry("header_down", "headers"), Map.entry("add_header", "headers"),
                    Map.entry("header_up", "request_headers"), Map.entry("proxy_set_header", "request_headers"),
                    Map.entry("security", "security_headers"), Map.entry("secure_headers", "security_headers"),
                    Map.entry("hsts", "security_headers"),
                    Map.entry("compression", "gzip"), Map.entry("encode", "gzip"),
                    Map.entry("auth", "basic_auth"), Map.entry("basicauth", "basic_auth"),
                    Map.entry("users", "basic_auth"), Map.entry("htpasswd", "basic_auth"),
                    Map.entry("whitelist", "allow"), Map.entry("allowlist", "allow"), Map.entry("allow_from", "allow"),
                    Map.entry("blacklist", "deny"), Map.entry("denylist", "deny"), Map.entry("deny_from", "deny"),
                    Map.entry("block", "deny"),
                    Map.entry("ratelimit", "rate_limit"), Map.entry("throttle", "rate_limit"),
                    Map.entry("limit_req", "rate_limit"), Map.entry("https", "tls"), Map.entry("ssl", "tls"),
                    Map.entry("certificate", "tls"), Map.entry("cert", "tls"), Map.entry("certs", "tls"),
                    Map.entry("accesslog", "access_log"), Map.entry("log", "access_log"),
                    Map.entry("logging", "access_log"),
                    Map.entry("locations", "paths"), Map.entry("location", "paths"), Map.entry("routes", "paths"),
                    Map.entry("custom_locations", "paths"), Map.entry("handle", "paths"),
                    Map.entry("handle_path", "paths"), Map.entry("path_prefix", "paths"),
                    Map.entry("backend_tls", "upstream_tls"), Map.entry("transport", "upstream_tls"),
                    Map.entry("servers_transport", "upstream_tls"), Map.entry("proxy_ssl", "upstream_tls"),
                    Map.entry("tls_upstream", "upstream_tls"),
                    Map.entry("tls_passthrough", "passthrough"), Map.entry("pass_through", "passthrough"),
                    Map.entry("send_proxy", "proxy_protocol"), Map.entry("proxyprotocol", "proxy_protocol"),
                    Map.entry("document_root", "root"), Map.entry("docroot", "root"), Map.entry("webroot", "root"),
                    Map.entry("static", "root"), Map.entry("file_server", "root"), Map.entry("files", "root"),
                    Map.entry("public", "root"), Map.entry("folder", "root"), Map.entry("dir", "root"),
                    Map.entry("index_files", "index"), Map.entry("directory_index", "index"),
                    Map.entry("autoindex", "browse"), Map.entry("listing", "browse"),
                    Map.entry("directory_listing", "browse"), Map.entry("fallback", "spa"),
                    Map.entry("try_files", "spa"), Map.entry("single_page_app", "spa"),
                    Map.entry("gzip_static", "precompressed"), Map.entry("precompress", "precompressed"),
                    Map.entry("forwardauth", "forward_auth"), Map.entry("auth_request", "forward_auth"),
                    Map.entry("forward_authentication", "forward_auth"), Map.entry("sso", "forward_auth"),
                    Map.entry("authelia", "forward_auth"), Map.entry("authentik", "forward_auth"),
                    Map.entry("errors", "error_pages"), Map.entry("error_page", "error_pages"),
                    Map.entry("custom_errors", "error_pages"), Map.entry("maintenance_mode", "maintenance"),
                    Map.entry("wait", "wait_for_backend"), Map.entry("hold_requests", "wait_for_backend"),
                    Map.entry("wait_for_upstream", "wait_for_backend")))
            .withMisplaced(Map.ofEntries(
                    Map.entry("connect", "\"connect\" belongs under timeouts: in this site"),
                    Map.entry("response", "\"response\" belongs under timeouts: in this site"),
                    Map.entry("read", "\"read\" belongs under timeouts: in this site"),
                    Map.entry("write", "\"write\" belongs under timeouts: in this site"),
                    Map.entry("websocket", "\"websocket\" belongs under timeouts: in this site"),
                    Map.entry("header_size", "\"header_size\" can only be set for all sites, under the top-level "
                            + "limits:"),
                    Map.entry("connections", "\"connections\" can only be set for all sites, under the top-level "
                            + "limits:"),
                    Map.entry("idle", "\"idle\" belongs under timeouts: in this site"),
                    Map.entry("trusted_proxies", "\"trusted_proxies\" can only be set for all sites, at the top "
                            + "level"),
                    Map.entry("path", "\"path\" belongs under health: in this site"),
                    Map.entry("interval", "\"interval\" belongs under health: in this site"),
                    Map.entry("max_fails", "\"max_fails\" belongs under health: in this site"),
                    Map.entry("fail_timeout", "\"fail_timeout\" belongs under health: in this site"),
                    Map.entry("requests", "\"requests\" belongs under rate_limit: in this site"),
                    Map.entry("burst", "\"burst\" belongs under rate_limit: in this site"),
                    Map.entry("status", "\"status\" belongs under redirect: or respond: in this site"),
                    Map.entry("body", "\"body\" belongs under respond: in this site"),
                    Map.entry("content_type", "\"content_type\" belongs under respond: in this site"),
                    Map.entry("strip_prefix", "\"strip_prefix\" belongs to one of the site's paths:, as in "
                            + "paths: {/api/: {to: api:8080, strip_prefix: true}}"),
                    Map.entry("add_prefix", "\"add_prefix\" belongs to one of the site's paths:"),
                    Map.entry("ca", "\"ca\" belongs under upstream_tls: in this site"),
                    Map.entry("server_name", "\"server_name\" belongs under upstream_tls: in this site"),
                    Map.entry("insecure_skip_verify", "\"insecure_skip_verify\" belongs under upstream_tls: in "
                            + "this site"),
                    Map.entry("alpn", "\"alpn\" belongs under upstream_tls: in this site"),
                    Map.entry("copy_headers", "\"copy_headers\" belongs under forward_auth: in this site"),
                    Map.entry("intercept", "\"intercept\" belongs under error_pages: in this site"),
                    Map.entry("retry_after", "\"retry_after\" belongs under maintenance: in this site")));

    /** Keys whose values are files or folders of this machine: a container's labels may not name them. */
    private static final List<String> HOST_FILES = List.of("root", "error_pages", "maintenance", "tls.cert",
            "tls.key", "upstream_tls.ca", "upstream_tls.client_cert", "upstream_tls.client_key", "forward_auth.tls.ca",
            "forward_auth.tls.client_cert", "forward_auth.tls.client_key");

    /** Where a normalised site name was first seen. */
    private record FirstSeen(String raw, Node keyNode) {
    }

    private final NodeWalker walker;
    private final Values values;
    private final TlsReader tls;
    private final SiteParts parts;
    private final PathsReader paths;
    private final PassthroughReader passthrough;
    private final java.nio.file.Path baseDir;
    /** Reading sites from container labels (no site's own tls.dns): they may not name files of this machine. */
    private final boolean fromLabels;

    /**
     * @param baseDir     where relative certificate paths start
     * @param httpsOn     false when listen.https is off
     * @param siteDns     reads a site's own {@code tls.dns}; null where sites may not have one (container labels:
     *                    it names programs and secret files of this machine)
     * @param globalDns01 true when {@code acme.dns} is written
     */
    SitesReader(NodeWalker walker, Values values, java.nio.file.Path baseDir, boolean httpsOn, DnsReader siteDns,
                boolean globalDns01) {
        this.walker = walker;
        this.values = values;
        this.tls = new TlsReader(walker, values, baseDir, httpsOn, siteDns, globalDns01);
        this.parts = new SiteParts(walker, values, baseDir);
        this.paths = new PathsReader(walker, values, parts);
        this.passthrough = new PassthroughReader(walker, values, httpsOn);
        this.baseDir = baseDir;
        this.fromLabels = siteDns == null;
    }

    /** {@code accessLog}: the top-level access log setting, which a site follows unless it has its own. */
    List<Site> read(Field sites, Timeouts timeouts, Limits limits, boolean accessLog, ErrorPageSet globalPages) {
        List<Site> result = new ArrayList<>();
        Map<String, FirstSeen> seen = new HashMap<>();
        Map<String, Site> certificates = new HashMap<>();
        for (Field field : walker.entries(sites.value(), sites.path(), "a mapping of site names to upstreams",
                "site name")) {
            Optional<SiteNames.SiteName> name = siteName(field, seen);
            Optional<Site> site = site(field, name.orElse(new SiteNames.SiteName(field.key(), false)), timeouts,
                    limits, accessLog, globalPages);
            if (name.isPresent() && site.isPresent() && sharesAlike(field, site.get(), certificates)) {
                result.add(site.get());
            }
        }
        return result;
    }

    /**
     * True unless {@code site} shares its certificate ({@code tls: {wildcard: true}}, or a wildcard site) with an
     * earlier site that would get it another way: one certificate has one source.
     */
    private boolean sharesAlike(Field field, Site site, Map<String, Site> certificates) {
        if (!site.tls().terminated()) { // plain HTTP, or passthrough: Usher holds no certificate for it
            return true;
        }
        String certificate = site.tls().certificateName(site.name());
        Site first = certificates.putIfAbsent(certificate, site);
        if (first == null || first.tls().ofCertificate().equals(site.tls().ofCertificate())) {
            return true;
        }
        walker.error(field.keyNode(), field.path(), "\"" + site.name() + "\" shares the certificate " + certificate
                + " with \"" + first.name() + "\" (" + (first.line() > 0 ? "line " + first.line() : "from container labels")
                + "), which gets it " + how(first.tls())
                + ", while this site asks for it " + how(site.tls()) + "; give both the same tls: settings");
        return false;
    }

    private static String how(TlsPolicy policy) {
        return switch (policy.kind()) {
            case ACME -> policy.dns() == null ? "through acme: (and acme.dns)"
                    : "through its own tls.dns (" + policy.dns().describe() + ")";
            case INTERNAL -> "from the local CA";
            case FILES -> "from the files " + policy.cert() + " and " + policy.key();
            case PASSTHROUGH, NONE -> "nowhere";
        };
    }

    private Optional<SiteNames.SiteName> siteName(Field field, Map<String, FirstSeen> seen) {
        if (NodeWalker.isNull(field.keyNode())) {
            walker.typeError(field.keyNode(), field.path(), "a site name");
            return Optional.empty();
        }
        Optional<SiteNames.SiteName> name = values.parse(field.keyNode(), field.path(),
                () -> SiteNames.parse(field.key()));
        if (name.isEmpty()) {
            return name;
        }
        FirstSeen first = seen.putIfAbsent(name.get().name(), new FirstSeen(field.key(), field.keyNode()));
        if (first != null) {
            walker.error(field.keyNode(), field.path(), "duplicate site \"" + name.get().name()
                    + "\"; first given " + walker.where(first.keyNode()) + " as \"" + first.raw() + "\"");
            return Optional.empty();
        }
        return name;
    }

    /** The site, or nothing when its value has errors (all of them recorded). */
    private Optional<Site> site(Field field, SiteNames.SiteName name, Timeouts timeouts, Limits limits,
                                boolean accessLog, ErrorPageSet globalPages) {
        Node value = field.value();
        if (value instanceof MappingNode) {
            return longForm(field, name, timeouts, limits, accessLog, globalPages);
        }        if (NodeWalker.isNull(value)) {
            walker.error(field.keyNode(), field.path(), "the site has no upstream; write the backend address after "
                    + "the colon, as in " + field.key() + ": " + Upstreams.EXAMPLE);
            return Optional.empty();
        }
        if (value instanceof ScalarNode scalar && scalar.getValue().indexOf('{') >= 0) {
            walker.error(value, field.path(), "an upstream address has no placeholders; to redirect, write "
                    + "{redirect: \"" + scalar.getValue() + "\"}");
            return Optional.empty();
        }
        Optional<TlsPolicy> policy = tls.read(field, name, null);
        return parts.upstreams(value, field.path(), UPSTREAM, UpstreamTls.DEFAULT).flatMap(ups -> policy
                .map(p -> new Site(name.name(), name.plainHttp(), ups, limits.maxBody(), timeouts.connect(),
                        timeouts.response(), ErrorList.line(field.keyNode()), ErrorList.column(field.keyNode()),
                        SiteTraffic.DEFAULTS.withKeepAliveIdle(timeouts.idle()).withErrorPages(globalPages), p,
                        accessLog)));
    }

    private Optional<Site> longForm(Field field, SiteNames.SiteName name, Timeouts timeouts, Limits limits,
                                    boolean accessLogDefault, ErrorPageSet globalPages) {
        Map<String, Field> fields = walker.fields(field.value(), field.path(), "a mapping of site settings", SITE);
        if (passthrough.wanted(fields)) {
            return passthrough.read(field, name, fields, timeouts, accessLogDefault);
        }
        Field proxyProtocol = fields.get("proxy_protocol");
        if (proxyProtocol != null) {
            walker.error(proxyProtocol.keyNode(), proxyProtocol.path(), "proxy_protocol sends the client's address "
                    + "to the backend of a passthrough site (passthrough: true); Usher tells HTTP backends in "
                    + "X-Forwarded-For");
        }
        Field flag = fields.get("passthrough");
        if (flag != null) {
            values.bool(flag); // false, or an error for what is no boolean
        }
        boolean accessLog = Optional.ofNullable(fields.get("access_log")).flatMap(values::bool)
                .orElse(accessLogDefault);
        Field to = fields.get("to");
        Field pathsField = fields.get("paths");
        if (fromLabels && namesHostFiles(fields, pathsField)) {
            return Optional.empty();
        }
        boolean oneAction = oneAction(field, fields, pathsField != null);
        Optional<UpstreamTls> upstreamTls = parts.upstreamTls(fields.get("upstream_tls"), UpstreamTls.DEFAULT);
        Optional<List<UpstreamAddress>> upstreams = to == null ? Optional.of(List.of())
                : parts.upstreams(to, upstreamTls.orElse(UpstreamTls.DEFAULT));
        long maxBody = Optional.ofNullable(fields.get("max_body"))
                .flatMap(f -> values.size(f, 0, Long.MAX_VALUE)).orElse(limits.maxBody());
        SiteTraffic d = SiteTraffic.DEFAULTS;
        Map<String, Field> t = parts.timeouts(fields.get("timeouts"));
        Duration connect = parts.duration(t, "connect", timeouts.connect());
        Duration response = parts.duration(t, "response", timeouts.response());
        SiteTraffic base = d.withErrorPages(globalPages).withTimeouts(parts.duration(t, "read", d.readTimeout()),
                parts.duration(t, "write", d.writeTimeout()), parts.duration(t, "websocket", d.websocketIdle()),
                parts.duration(t, "idle", timeouts.idle()));
        SiteTraffic traffic = new TrafficReader(walker, values, baseDir).read(fields, to != null || !oneAction, base);
        Optional<TlsPolicy> policy = tls.read(field, name, fields.get("tls"));
        if (!oneAction || policy.isEmpty() || upstreams.isEmpty() || upstreamTls.isEmpty()) {
            return Optional.empty();
        }
        Site site = new Site(name.name(), name.plainHttp(), upstreams.get(), maxBody, connect, response,
                ErrorList.line(field.keyNode()), ErrorList.column(field.keyNode()), traffic, policy.get(), accessLog);
        if (to == null && traffic.files() == null && traffic.redirect() == null && traffic.respond() == null
                && pathsField == null) {
            return Optional.empty(); // a folder, redirect or fixed answer with errors, already reported
        }
        if (pathsField == null) {
            parts.checkTlsApplies(fields.get("upstream_tls"), SiteParts.anyHttps(site.upstreams()));
            return Optional.of(site);
        }
        Optional<List<SitePath>> read = paths.read(pathsField, site, upstreamTls.get());
        boolean anyHttps = SiteParts.anyHttps(site.upstreams()) || read.orElse(List.of()).stream()
                .anyMatch(p -> SiteParts.anyHttps(p.site().upstreams()));
        parts.checkTlsApplies(fields.get("upstream_tls"), anyHttps);
        return read.map(list -> new Site(site.name(), site.plainHttp(), site.upstreams(), site.maxBody(),
                site.connectTimeout(), site.responseTimeout(), site.line(), site.column(), site.traffic(),
                site.tls(), site.accessLog(), list));
    }

    /**
     * True when the site has exactly one of to, root, redirect and respond (or none, when it has paths: what no path
     * matches then gets a 404); otherwise reports what is wrong.
     */
    private boolean oneAction(Field site, Map<String, Field> fields, boolean hasPaths) {
        List<Field> actions = SiteParts.actions(fields);
        if (actions.isEmpty() && !hasPaths) {
            walker.error(site.keyNode(), site.path(), "missing \"to\": the upstream address, or a list of them (or "
                    + "root: a folder to serve)");
            return false;
        }
        return parts.atMostOneAction(actions);
    }

    /**
     * Reports each key of a label site (or of one of its paths) that names files or folders of this machine: a
     * container must not get Usher to serve /etc, read a file of its choosing as an error page, or load a key and
     * certificate (or a CA to trust) from the host.
     */
    private boolean namesHostFiles(Map<String, Field> fields, Field pathsField) {
        List<Field> found = new ArrayList<>();
        hostFiles(fields.values(), "", found);
        if (pathsField != null && pathsField.value() instanceof MappingNode paths) {
            for (var path : paths.getValue()) {
                if (path.getValueNode() instanceof MappingNode options) {
                    hostFiles(fields(options, pathsField.path()), "", found);
                }
            }
        }
        for (Field f : found) {
            walker.error(f.keyNode(), f.path(), f.key() + " cannot come from container labels (it names files of "
                    + "this machine); a site that needs it belongs in usher.yaml");
        }
        return !found.isEmpty();
    }

    /** Adds to {@code found} the fields (named with their {@code prefix}: "tls.cert") listed in {@link #HOST_FILES}. */
    private static void hostFiles(Iterable<Field> fields, String prefix, List<Field> found) {
        for (Field f : fields) {
            String name = prefix + f.key();
            if (HOST_FILES.contains(name)) {
                found.add(new Field(name, f.keyNode(), f.value(), f.path()));
            } else if (f.value() instanceof MappingNode nested
                    && HOST_FILES.stream().anyMatch(k -> k.startsWith(name + "."))) {
                hostFiles(fields(nested, f.path()), name + ".", found);
            }
        }
    }

    /** A mapping's scalar keys as fields (without the walker's checks: only for looking keys up). */
    private static List<Field> fields(MappingNode mapping, YamlPath path) {
        List<Field> out = new ArrayList<>();
        for (var tuple : mapping.getValue()) {
            if (tuple.getKeyNode() instanceof ScalarNode key) {
                out.add(new Field(key.getValue(), key, tuple.getValueNode(), path));
            }
        }
        return out;
    }
}
