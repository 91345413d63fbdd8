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
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code sites:}: each key a site name, each value either upstreams (one address, or a list) or a mapping of
 * site settings ({@code to}, {@code max_body}, {@code timeouts}). Applies the global defaults, so every {@link Site}
 * carries its effective values. Two keys that name the same site once normalised are an error.
 */
final class SitesReader {
    private static final String UPSTREAM = "an upstream address such as " + Upstreams.EXAMPLE;
    private static final Keys SITE = Keys.of("to", "max_body", "timeouts")
            .withAliases(Map.of("upstream", "to", "upstreams", "to", "backend", "to", "backends", "to",
                    "proxy", "to", "target", "to", "targets", "to", "reverse_proxy", "to"))
            .withMisplaced(Map.of(
                    "connect", "\"connect\" belongs under timeouts: in this site",
                    "response", "\"response\" belongs under timeouts: in this site",
                    "header_size", "\"header_size\" can only be set for all sites, under the top-level limits:",
                    "connections", "\"connections\" can only be set for all sites, under the top-level limits:"));
    private static final Keys SITE_TIMEOUTS = Keys.of("connect", "response")
            .withAliases(Map.of("dial", "connect", "read", "response"))
            .withMisplaced(Map.of(
                    "header", "\"header\" can only be set for all sites, under the top-level timeouts:",
                    "idle", "\"idle\" can only be set for all sites, under the top-level timeouts:"));

    /** Where a normalised site name was first seen. */
    private record FirstSeen(String raw, int line) {
    }

    private final NodeWalker walker;
    private final Values values;

    SitesReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    List<Site> read(Field sites, Timeouts timeouts, Limits limits) {
        List<Site> result = new ArrayList<>();
        Map<String, FirstSeen> seen = new HashMap<>();
        for (Field field : walker.entries(sites.value(), sites.path(), "a mapping of site names to upstreams",
                "site name")) {
            Optional<SiteNames.SiteName> name = siteName(field, seen);
            Optional<Site> site = site(field, name.orElse(new SiteNames.SiteName(field.key(), false)), timeouts,
                    limits);
            if (name.isPresent()) {
                site.ifPresent(result::add);
            }
        }
        return result;
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
        int line = ErrorList.line(field.keyNode());
        FirstSeen first = seen.putIfAbsent(name.get().name(), new FirstSeen(field.key(), line));
        if (first != null) {
            walker.error(field.keyNode(), field.path(), "duplicate site \"" + name.get().name()
                    + "\"; first given on line " + first.line() + " as \"" + first.raw() + "\"");
            return Optional.empty();
        }
        return name;
    }

    /** The site, or nothing when its value has errors (all of them recorded). */
    private Optional<Site> site(Field field, SiteNames.SiteName name, Timeouts timeouts, Limits limits) {
        Node value = field.value();
        if (value instanceof MappingNode) {
            return longForm(field, name, timeouts, limits);
        }
        if (NodeWalker.isNull(value)) {
            walker.error(field.keyNode(), field.path(), "the site has no upstream; write the backend address after "
                    + "the colon, as in " + field.key() + ": " + Upstreams.EXAMPLE);
            return Optional.empty();
        }
        return upstreams(value, field.path(), UPSTREAM)
                .map(ups -> new Site(name.name(), name.plainHttp(), ups, limits.maxBody(), timeouts.connect(),
                        timeouts.response(), ErrorList.line(field.keyNode()), ErrorList.column(field.keyNode())));
    }

    private Optional<Site> longForm(Field field, SiteNames.SiteName name, Timeouts timeouts, Limits limits) {
        Map<String, Field> fields = walker.fields(field.value(), field.path(), "a mapping of site settings", SITE);
        Field to = fields.get("to");
        Optional<List<UpstreamAddress>> upstreams = Optional.empty();
        if (to == null) {
            walker.error(field.keyNode(), field.path(), "missing \"to\": the upstream address, or a list of them");
        } else if (NodeWalker.isNull(to.value())) {
            walker.typeError(to.value(), to.path(), "an upstream address or a list of them");
        } else {
            upstreams = upstreams(to.value(), to.path(), "an upstream address or a list of them");
        }
        long maxBody = Optional.ofNullable(fields.get("max_body"))
                .flatMap(f -> values.size(f, 0, Long.MAX_VALUE)).orElse(limits.maxBody());
        Duration connect = timeouts.connect();
        Duration response = timeouts.response();
        Field siteTimeouts = fields.get("timeouts");
        if (siteTimeouts != null && !NodeWalker.isNull(siteTimeouts.value())) {
            Map<String, Field> t = walker.fields(siteTimeouts.value(), siteTimeouts.path(),
                    "a mapping of timeouts (connect, response)", SITE_TIMEOUTS);
            connect = Optional.ofNullable(t.get("connect")).flatMap(values::duration).orElse(connect);
            response = Optional.ofNullable(t.get("response")).flatMap(values::duration).orElse(response);
        }
        Duration c = connect;
        Duration r = response;
        return upstreams.map(ups -> new Site(name.name(), name.plainHttp(), ups, maxBody, c, r,
                ErrorList.line(field.keyNode()), ErrorList.column(field.keyNode())));
    }

    /** One upstream or a list of them; nothing if any is wrong. */
    private Optional<List<UpstreamAddress>> upstreams(Node node, YamlPath path, String expected) {
        if (node instanceof SequenceNode list) {
            if (list.getValue().isEmpty()) {
                walker.error(node, path, "the list of upstreams is empty; give at least one, as in ["
                        + Upstreams.EXAMPLE + "]");
                return Optional.empty();
            }
            List<UpstreamAddress> result = new ArrayList<>();
            boolean ok = true;
            for (int i = 0; i < list.getValue().size(); i++) {
                Optional<UpstreamAddress> one = upstream(list.getValue().get(i), path.index(i), UPSTREAM);
                one.ifPresent(result::add);
                ok &= one.isPresent();
            }
            return ok ? Optional.of(result) : Optional.empty();
        }
        return upstream(node, path, expected).map(List::of);
    }

    private Optional<UpstreamAddress> upstream(Node node, YamlPath path, String expected) {
        return walker.text(node, path, expected, NodeWalker.STRING)
                .flatMap(text -> values.parse(node, path, () -> Upstreams.parse(text)));
    }
}
