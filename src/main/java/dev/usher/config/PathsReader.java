package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;

/**
 * Reads a site's {@code paths:}: an ordered mapping from a path pattern ({@link PathPatterns}) to what serves it,
 * either backends written as in a short-form site ({@code /api/: api:8080}) or a mapping with {@code to},
 * {@code root} (a folder, with {@code index}, {@code browse}, {@code spa}, {@code precompressed}), {@code redirect} or
 * {@code respond}, {@code strip_prefix}, {@code add_prefix} and the per-site options that make
 * sense for part of a site. A path takes every option of its site except those it sets itself, and the site's
 * backends when it names no target of its own (an entry with only {@code basic_auth:} protects part of a site).
 */
final class PathsReader {
    private static final Keys PATH = Keys.of("to", "root", "redirect", "respond", "strip_prefix", "add_prefix",
                    "max_body", "timeouts", "policy", "health", "headers", "request_headers", "security_headers",
                    "gzip", "basic_auth", "allow", "deny", "rate_limit", "upstream_tls", "index", "browse", "spa",
                    "precompressed")
            .withSynonyms(Map.of("compress", "gzip"))
            .withAliases(Map.ofEntries(
                    Map.entry("upstream", "to"), Map.entry("upstreams", "to"), Map.entry("backend", "to"),
                    Map.entry("backends", "to"), Map.entry("proxy", "to"), Map.entry("proxy_pass", "to"),
                    Map.entry("target", "to"), Map.entry("reverse_proxy", "to"),
                    Map.entry("strip", "strip_prefix"), Map.entry("stripprefix", "strip_prefix"),
                    Map.entry("strip_path", "strip_prefix"), Map.entry("handle_path", "strip_prefix"),
                    Map.entry("prefix", "add_prefix"), Map.entry("addprefix", "add_prefix"),
                    Map.entry("redir", "redirect"), Map.entry("return", "respond"),
                    Map.entry("response_headers", "headers"), Map.entry("header", "headers"),
                    Map.entry("auth", "basic_auth"), Map.entry("basicauth", "basic_auth"),
                    Map.entry("whitelist", "allow"), Map.entry("blacklist", "deny"),
                    Map.entry("ratelimit", "rate_limit"), Map.entry("lb_policy", "policy"),
                    Map.entry("health_check", "health"), Map.entry("backend_tls", "upstream_tls")))
            .withMisplaced(Map.ofEntries(
                    Map.entry("tls", "\"tls\" is the site's certificate and belongs to the site, not to one of "
                            + "its paths"),
                    Map.entry("access_log", "\"access_log\" belongs to the site, not to one of its paths"),
                    Map.entry("paths", "paths do not nest; write the longer path as another entry of the site's "
                            + "paths: (the longest match wins)"),
                    Map.entry("connect", "\"connect\" belongs under timeouts: in this path"),
                    Map.entry("response", "\"response\" belongs under timeouts: in this path"),
                    Map.entry("read", "\"read\" belongs under timeouts: in this path"),
                    Map.entry("write", "\"write\" belongs under timeouts: in this path"),
                    Map.entry("ca", "\"ca\" belongs under upstream_tls: in this path")));
    private static final String EXPECTED = "an upstream address, or a mapping such as {to: api:8080, "
            + "strip_prefix: true}";

    private final NodeWalker walker;
    private final Values values;
    private final SiteParts parts;

    PathsReader(NodeWalker walker, Values values, SiteParts parts) {
        this.walker = walker;
        this.values = values;
        this.parts = parts;
    }

    /**
     * The paths of {@code site} (read so far without them), or nothing when any has errors (all reported).
     *
     * @param siteTls the site's {@code upstream_tls}, which a path's https:// backends use unless it has its own
     */
    Optional<List<SitePath>> read(Field section, Site site, UpstreamTls siteTls) {
        if (NodeWalker.isNull(section.value())) {
            walker.error(section.keyNode(), section.path(), "paths: is empty; give entries such as /api/: api:8080, "
                    + "or remove it");
            return Optional.empty();
        }
        List<SitePath> result = new ArrayList<>();
        boolean ok = true;
        for (Field entry : walker.entries(section.value(), section.path(), "a mapping of paths such as "
                + "{/api/: api:8080}", "path")) {
            Optional<SitePath.Match> match = values.parse(entry.keyNode(), entry.path(),
                    () -> PathPatterns.parse(entry.key()));
            // Patterns are written normalised, so two different keys never mean the same path (and the walker
            // reports a key given twice).
            Optional<SitePath> path = match.flatMap(m -> path(entry, m, site, siteTls));
            path.ifPresent(result::add);
            ok &= path.isPresent();
        }
        return ok ? Optional.of(result) : Optional.empty();
    }

    private Optional<SitePath> path(Field entry, SitePath.Match match, Site site, UpstreamTls siteTls) {
        Node value = entry.value();
        if (NodeWalker.isNull(value)) {
            walker.error(entry.keyNode(), entry.path(), "the path has nothing after the colon; write a backend, as in "
                    + entry.key() + ": " + Upstreams.EXAMPLE + ", or a mapping of its settings");
            return Optional.empty();
        }
        if (!(value instanceof MappingNode)) {
            return parts.upstreams(value, entry.path(), EXPECTED, siteTls)
                    .map(ups -> new SitePath(entry.key(), match, false, "", effective(site, entry, ups,
                            site.maxBody(), site.connectTimeout(), site.responseTimeout(),
                            site.traffic().withoutAnswers()), true));
        }
        Map<String, Field> fields = walker.fields(value, entry.path(), EXPECTED, PATH);
        List<Field> actions = SiteParts.actions(fields);
        boolean oneAction = parts.atMostOneAction(actions);
        boolean ownTarget = !actions.isEmpty();
        Field to = fields.get("to");
        Optional<UpstreamTls> tls = parts.upstreamTls(fields.get("upstream_tls"), siteTls);
        Optional<List<UpstreamAddress>> upstreams = to != null ? parts.upstreams(to, tls.orElse(siteTls))
                : Optional.of(ownTarget ? List.of() : site.upstreams());
        if (fields.containsKey("upstream_tls") && to == null) {
            Field f = fields.get("upstream_tls");
            walker.error(f.keyNode(), f.path(), "upstream_tls applies to the path's own https:// backends; give "
                    + "them with to:, or set upstream_tls on the site");
        } else {
            upstreams.ifPresent(ups -> parts.checkTlsApplies(fields.get("upstream_tls"), SiteParts.anyHttps(ups)));
        }
        boolean strip = Optional.ofNullable(fields.get("strip_prefix")).flatMap(values::bool).orElse(false);
        Optional<String> addPrefix = Optional.ofNullable(fields.get("add_prefix"))
                .map(f -> walker.text(f.value(), f.path(), "a path such as /v1", NodeWalker.STRING)
                        .flatMap(t -> values.parse(f.value(), f.path(), () -> PathPatterns.addPrefix(t))))
                .orElse(Optional.of(""));
        long maxBody = Optional.ofNullable(fields.get("max_body"))
                .flatMap(f -> values.size(f, 0, Long.MAX_VALUE)).orElse(site.maxBody());
        SiteTraffic inherited = site.traffic();
        Map<String, Field> t = parts.timeouts(fields.get("timeouts"));
        Duration connect = parts.duration(t, "connect", site.connectTimeout());
        Duration response = parts.duration(t, "response", site.responseTimeout());
        SiteTraffic base = (ownTarget ? inherited.withoutAnswers() : inherited).withTimeouts(
                parts.duration(t, "read", inherited.readTimeout()),
                parts.duration(t, "write", inherited.writeTimeout()),
                parts.duration(t, "websocket", inherited.websocketIdle()),
                parts.duration(t, "idle", inherited.keepAliveIdle()));
        // policy and health without to: are reported once, by checkBalancingNeedsOwnBackends.
        boolean forwards = to != null || !ownTarget && (site.forwards() || fields.containsKey("policy")
                || fields.containsKey("health"));
        checkBalancingNeedsOwnBackends(fields, to);
        SiteTraffic traffic = new TrafficReader(walker, values, parts.baseDir()).read(fields, forwards, base);
        if (!oneAction || upstreams.isEmpty() || tls.isEmpty() || addPrefix.isEmpty()) {
            return Optional.empty();
        }
        if (ownTarget && to == null && traffic.files() == null && traffic.redirect() == null
                && traffic.respond() == null) {
            return Optional.empty(); // its folder, redirect or fixed answer had errors, already reported
        }
        return Optional.of(new SitePath(entry.key(), match, strip, addPrefix.get(),
                effective(site, entry, upstreams.get(), maxBody, connect, response, traffic), ownTarget));
    }

    /** policy and health choose among the path's own backends: without to: they would have none to choose from. */
    private void checkBalancingNeedsOwnBackends(Map<String, Field> fields, Field to) {
        if (to != null) {
            return;
        }
        for (String key : List.of("policy", "health")) {
            Field f = fields.get(key);
            if (f != null) {
                walker.error(f.keyNode(), f.path(), key + " applies to the path's own backends (to:); the site's "
                        + "backends keep the site's " + key);
            }
        }
    }

    /** The site as the path sees it, at the path's position in the file. */
    private static Site effective(Site site, Field entry, List<UpstreamAddress> upstreams, long maxBody,
                                  Duration connect, Duration response, SiteTraffic traffic) {
        return new Site(site.name(), site.plainHttp(), upstreams, maxBody, connect, response,
                ErrorList.line(entry.keyNode()), ErrorList.column(entry.keyNode()), traffic, site.tls(),
                site.accessLog());
    }
}
