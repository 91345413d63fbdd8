package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;

/**
 * Reads {@code streams:}: each key a port to listen on ({@code ":2222"}, {@code ":27015/udp"}), each value the
 * backends (one address or a list) or a mapping of stream settings ({@code to}, {@code sni}, {@code policy},
 * {@code health}, {@code allow}, {@code deny}, {@code max_connections} or {@code max_sessions}, {@code timeouts},
 * {@code proxy_protocol}, {@code access_log}). A port that another stream or one of Usher's own listeners takes is
 * an error ({@link ListenerClashes} checks the latter).
 */
final class StreamsReader {
    private static final String BACKEND = "a backend address such as gitea:22";
    private static final Keys STREAM = Keys.of("to", "sni", "policy", "health", "allow", "deny", "max_connections",
                    "max_sessions", "timeouts", "proxy_protocol", "access_log")
            .withAliases(Map.ofEntries(
                    Map.entry("upstream", "to"), Map.entry("upstreams", "to"), Map.entry("backend", "to"),
                    Map.entry("backends", "to"), Map.entry("target", "to"), Map.entry("proxy_pass", "to"),
                    Map.entry("servers", "to"), Map.entry("server_name", "sni"), Map.entry("server_names", "sni"),
                    Map.entry("hostsni", "sni"), Map.entry("host_sni", "sni"), Map.entry("names", "sni"),
                    Map.entry("lb_policy", "policy"), Map.entry("balancing", "policy"), Map.entry("lb", "policy"),
                    Map.entry("health_check", "health"), Map.entry("healthcheck", "health"),
                    Map.entry("whitelist", "allow"), Map.entry("allowlist", "allow"),
                    Map.entry("blacklist", "deny"), Map.entry("denylist", "deny"), Map.entry("block", "deny"),
                    Map.entry("connections", "max_connections"), Map.entry("limit", "max_connections"),
                    Map.entry("max_conns", "max_connections"), Map.entry("sessions", "max_sessions"),
                    Map.entry("proxy", "proxy_protocol"), Map.entry("send_proxy", "proxy_protocol"),
                    Map.entry("proxy_protocol_version", "proxy_protocol"), Map.entry("proxyprotocol", "proxy_protocol"),
                    Map.entry("log", "access_log"), Map.entry("accesslog", "access_log")))
            .withMisplaced(Map.of(
                    "idle", "\"idle\" belongs under timeouts: in this stream",
                    "connect", "\"connect\" belongs under timeouts: in this stream",
                    "interval", "\"interval\" belongs under health: in this stream",
                    "passthrough", "a stream always relays its bytes as they are; passthrough: belongs to a site "
                            + "on the HTTPS port"));
    private static final Keys TARGET = Keys.of("to", "policy", "health", "proxy_protocol")
            .withAliases(Map.of("upstream", "to", "backend", "to", "backends", "to", "upstreams", "to",
                    "proxy", "proxy_protocol", "send_proxy", "proxy_protocol"));
    private static final Keys TIMEOUTS = Keys.of("connect", "idle")
            .withAliases(Map.of("dial", "connect", "timeout", "idle", "proxy_timeout", "idle"));

    /** A stream read so far, with the node its key was written at. */
    private record Read(StreamSetting stream, Node keyNode) {
    }

    private final NodeWalker walker;
    private final Values values;

    StreamsReader(NodeWalker walker, Values values) {
        this.walker = walker;
        this.values = values;
    }

    /**
     * @param timeouts  the top-level timeouts (a stream's connect timeout defaults to {@code timeouts.connect})
     * @param accessLog the top-level access log setting, which a stream follows unless it has its own
     * @param clashes   Usher's own listeners, which no stream may take the port of
     */
    List<StreamSetting> read(Field streams, Timeouts timeouts, boolean accessLog, ListenerClashes clashes) {
        List<Read> read = new ArrayList<>();
        for (Field field : walker.entries(streams.value(), streams.path(), "a mapping of ports to backends, such as "
                + "{\":2222\": gitea:22}", "stream port")) {
            Optional<StreamKeys.StreamKey> key = key(field);
            if (key.isEmpty()) {
                continue;
            }
            if (clash(field, key.get(), read) || clashes.check(field.keyNode(), field.path(), key.get())) {
                continue;
            }
            stream(field, key.get(), timeouts, accessLog).ifPresent(s -> read.add(new Read(s, field.keyNode())));
        }
        return read.stream().map(Read::stream).toList();
    }

    private Optional<StreamKeys.StreamKey> key(Field field) {
        if (NodeWalker.isNull(field.keyNode())) {
            walker.typeError(field.keyNode(), field.path(), "a port such as \":2222\" or \":27015/udp\"");
            return Optional.empty();
        }
        return values.parse(field.keyNode(), field.path(), () -> StreamKeys.parse(field.key()));
    }

    /** True (after the error) when an earlier stream of the same transport takes this port. */
    private boolean clash(Field field, StreamKeys.StreamKey key, List<Read> earlier) {
        for (Read other : earlier) {
            StreamSetting s = other.stream();
            if (s.protocol() == key.protocol() && StreamKeys.overlap(s.listen(), key.listen())) {
                walker.error(field.keyNode(), field.path(), "port " + key.listen().port() + "/"
                        + key.protocol().label() + " is already the stream \"" + s.name() + "\", "
                        + walker.where(other.keyNode()));
                return true;
            }
        }
        return false;
    }

    private Optional<StreamSetting> stream(Field field, StreamKeys.StreamKey key, Timeouts timeouts,
                                           boolean accessLogDefault) {
        Node value = field.value();
        boolean udp = key.protocol() == StreamSetting.Protocol.UDP;
        Duration defaultIdle = udp ? StreamSetting.DEFAULT_UDP_IDLE : StreamSetting.DEFAULT_TCP_IDLE;
        int line = ErrorList.line(field.keyNode());
        int column = ErrorList.column(field.keyNode());
        if (NodeWalker.isNull(value)) {
            walker.error(field.keyNode(), field.path(), "the stream has no backend; write it after the colon, as in "
                    + field.key() + ": " + (udp ? "game:27015" : "gitea:22"));
            return Optional.empty();
        }
        if (!(value instanceof MappingNode)) {
            return upstreams(value, field.path(), BACKEND).map(ups -> new StreamSetting(field.key(), key.listen(),
                    key.protocol(), new StreamTarget(ups, Balancing.DEFAULTS, ProxyProtocol.OFF), Map.of(), List.of(),
                    List.of(), StreamSetting.DEFAULT_MAX_CONNECTIONS, defaultIdle, timeouts.connect(), accessLogDefault,
                    line, column));
        }
        Map<String, Field> fields = walker.fields(value, field.path(), "a mapping of stream settings", STREAM);
        boolean ok = checkTransport(fields, udp);
        Balancing balancing = new BalancingReader(walker, values).read(fields.get("policy"),
                present(fields.get("health")), true);
        ProxyProtocol proxy = Optional.ofNullable(fields.get("proxy_protocol")).flatMap(this::proxyProtocol)
                .orElse(ProxyProtocol.OFF);
        Field to = fields.get("to");
        Optional<StreamTarget> target = Optional.empty();
        if (to != null) {
            target = upstreams(to.value(), to.path(), "a backend address or a list of them")
                    .map(ups -> new StreamTarget(ups, balancing, proxy));
            ok &= target.isPresent();
        }
        Map<String, StreamTarget> sni = Map.of();
        Field sniField = fields.get("sni");
        if (sniField != null) {
            Optional<Map<String, StreamTarget>> names = sni(sniField, balancing, proxy);
            ok &= names.isPresent();
            sni = names.orElse(Map.of());
        }
        if (to == null && sniField == null) {
            walker.error(field.keyNode(), field.path(), "missing \"to\": the backend address, or a list of them"
                    + (udp ? "" : " (or sni: to route by TLS server name)"));
            return Optional.empty();
        }
        Access access = new AccessReader(walker, values).read(fields.get("allow"), fields.get("deny"), null);
        int max = Optional.ofNullable(fields.get(udp ? "max_sessions" : "max_connections"))
                .flatMap(values::positiveInt).orElse(StreamSetting.DEFAULT_MAX_CONNECTIONS);
        Map<String, Field> t = present(fields.get("timeouts"))
                .map(f -> walker.fields(f.value(), f.path(), "a mapping of timeouts (connect, idle)", TIMEOUTS))
                .orElse(Map.of());
        Duration connect = Optional.ofNullable(t.get("connect")).flatMap(values::duration).orElse(timeouts.connect());
        Duration idle = Optional.ofNullable(t.get("idle")).flatMap(values::duration).orElse(defaultIdle);
        if (udp && t.containsKey("connect")) {
            Field c = t.get("connect");
            walker.error(c.keyNode(), c.path(), "a UDP stream connects nowhere; only timeouts.idle applies");
            ok = false;
        }
        boolean accessLog = Optional.ofNullable(fields.get("access_log")).flatMap(values::bool)
                .orElse(accessLogDefault);
        if (!ok) {
            return Optional.empty();
        }
        return Optional.of(new StreamSetting(field.key(), key.listen(), key.protocol(), target.orElse(null), sni,
                access.allow(), access.deny(), max, idle, connect, accessLog, line, column));
    }

    /** Reports the settings that do not apply to this transport; false when there were any. */
    private boolean checkTransport(Map<String, Field> fields, boolean udp) {
        Map<String, String> wrong = udp ? Map.of(
                "sni", "sni routes TLS connections by server name, and needs a TCP stream",
                "proxy_protocol", "the PROXY protocol header starts a TCP connection; a UDP stream has none to start",
                "max_connections", "a UDP stream has sessions, not connections: write max_sessions",
                "health", "UDP backends cannot be checked by connecting to them; leave health: out")
                : Map.of("max_sessions", "a TCP stream has connections: write max_connections");
        boolean ok = true;
        for (Map.Entry<String, String> e : wrong.entrySet()) {
            Field f = fields.get(e.getKey());
            if (f != null) {
                walker.error(f.keyNode(), f.path(), e.getValue());
                ok = false;
            }
        }
        return ok;
    }

    /** {@code sni: {name: backend | [backends] | {to, policy, health, proxy_protocol}}}; empty after an error. */
    private Optional<Map<String, StreamTarget>> sni(Field section, Balancing balancing, ProxyProtocol proxy) {
        if (NodeWalker.isNull(section.value()) || section.value() instanceof MappingNode m && m.getValue().isEmpty()) {
            walker.error(section.keyNode(), section.path(), "sni has no names; add lines of name: backend, as in "
                    + "{dot.example.com: unbound:853}");
            return Optional.empty();
        }
        Map<String, StreamTarget> names = new LinkedHashMap<>();
        Map<String, Node> seen = new LinkedHashMap<>();
        boolean ok = true;
        for (Field entry : walker.entries(section.value(), section.path(), "a mapping of TLS server names to "
                + "backends, such as {dot.example.com: unbound:853}", "server name")) {
            Optional<String> name = serverName(entry, seen);
            Optional<StreamTarget> target = entry.value() instanceof MappingNode
                    ? sniTarget(entry, balancing, proxy)
                    : upstreams(entry.value(), entry.path(), BACKEND).map(u -> new StreamTarget(u, balancing, proxy));
            ok &= name.isPresent() && target.isPresent();
            if (name.isPresent() && target.isPresent()) {
                names.put(name.get(), target.get());
            }
        }
        return ok ? Optional.of(names) : Optional.empty();
    }

    private Optional<String> serverName(Field entry, Map<String, Node> seen) {
        Optional<SiteNames.SiteName> name = values.parse(entry.keyNode(), entry.path(),
                () -> SiteNames.parse(entry.key()));
        if (name.isEmpty()) {
            return Optional.empty();
        }
        if (name.get().plainHttp()) {
            walker.error(entry.keyNode(), entry.path(), "a server name has no scheme; write the name alone");
            return Optional.empty();
        }
        Node first = seen.putIfAbsent(name.get().name(), entry.keyNode());
        if (first != null) {
            walker.error(entry.keyNode(), entry.path(), "duplicate server name \"" + name.get().name()
                    + "\"; first given " + walker.where(first));
            return Optional.empty();
        }
        return Optional.of(name.get().name());
    }

    /** One server name's long form: its own backends and, when given, its own policy, health and PROXY header. */
    private Optional<StreamTarget> sniTarget(Field entry, Balancing inherited, ProxyProtocol inheritedProxy) {
        Map<String, Field> fields = walker.fields(entry.value(), entry.path(), "a mapping such as {to: app:443, "
                + "proxy_protocol: v2}", TARGET);
        Balancing balancing = fields.containsKey("policy") || fields.containsKey("health")
                ? new BalancingReader(walker, values).read(fields.get("policy"), present(fields.get("health")), true)
                : inherited;
        ProxyProtocol proxy = Optional.ofNullable(fields.get("proxy_protocol")).flatMap(this::proxyProtocol)
                .orElse(inheritedProxy);
        Field to = fields.get("to");
        if (to == null) {
            walker.error(entry.keyNode(), entry.path(), "missing \"to\": the backend address, or a list of them");
            return Optional.empty();
        }
        return upstreams(to.value(), to.path(), "a backend address or a list of them")
                .map(ups -> new StreamTarget(ups, balancing, proxy));
    }

    /** {@code proxy_protocol: v1}, {@code v2} or {@code off} (or false). */
    Optional<ProxyProtocol> proxyProtocol(Field field) {
        return readProxyProtocol(walker, values, field);
    }

    /** Shared with the passthrough sites: {@code v1}, {@code v2}, {@code off} or {@code false}. */
    static Optional<ProxyProtocol> readProxyProtocol(NodeWalker walker, Values values, Field field) {
        Node node = field.value();
        if (node instanceof ScalarNode scalar && !NodeWalker.STRING.contains(scalar.getTag())) {
            String text = scalar.getValue();
            if (text.equalsIgnoreCase("false")) {
                return Optional.of(ProxyProtocol.OFF);
            }
            String hint = text.equals("1") || text.equals("2") ? "write v" + text
                    : "write v1 (the text header) or v2 (the binary one)";
            walker.error(node, field.path(), "expected v1, v2 or off, found " + NodeWalker.describe(node) + "; "
                    + hint);
            return Optional.empty();
        }
        return values.word(field, "PROXY protocol version", List.of("v1", "v2", "off"),
                        Map.of("1", "v1", "2", "v2", "version1", "v1", "version2", "v2", "text", "v1",
                                "binary", "v2", "none", "off", "no", "off", "on", "v2", "true", "v2"))
                .map(w -> ProxyProtocol.valueOf(w.toUpperCase(java.util.Locale.ROOT)));
    }

    private static Optional<Field> present(Field field) {
        return Optional.ofNullable(field).filter(f -> !NodeWalker.isNull(f.value()));
    }

    /** One backend or a list of them; nothing if any is wrong. */
    private Optional<List<UpstreamAddress>> upstreams(Node node, YamlPath path, String expected) {
        return relayUpstreams(walker, values, node, path, expected, -1);
    }

    /**
     * Backends of a relay (a stream, or a passthrough site with {@code defaultPort} 443): one address or a list of
     * them; nothing if any is wrong.
     */
    static Optional<List<UpstreamAddress>> relayUpstreams(NodeWalker walker, Values values, Node node, YamlPath path,
                                                          String expected, int defaultPort) {
        if (node instanceof SequenceNode list) {
            if (list.getValue().isEmpty()) {
                walker.error(node, path, "the list of backends is empty; give at least one");
                return Optional.empty();
            }
            List<UpstreamAddress> result = new ArrayList<>();
            boolean ok = true;
            for (int i = 0; i < list.getValue().size(); i++) {
                Node item = list.getValue().get(i);
                YamlPath at = path.index(i);
                Optional<UpstreamAddress> one = walker.text(item, at, BACKEND, NodeWalker.STRING)
                        .flatMap(text -> values.parse(item, at, () -> Upstreams.parseRelay(text, defaultPort)));
                one.ifPresent(result::add);
                ok &= one.isPresent();
            }
            return ok ? Optional.of(result) : Optional.empty();
        }
        return walker.text(node, path, expected, NodeWalker.STRING)
                .flatMap(text -> values.parse(node, path, () -> Upstreams.parseRelay(text, defaultPort)))
                .map(List::of);
    }
}
