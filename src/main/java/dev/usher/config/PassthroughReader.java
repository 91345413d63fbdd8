package dev.usher.config;

import dev.usher.config.NodeWalker.Field;
import dev.usher.config.NodeWalker.Keys;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.snakeyaml.engine.v2.nodes.ScalarNode;

/**
 * Reads a site whose TLS Usher does not terminate ({@code passthrough: true} or {@code tls: passthrough}): its
 * connections on the HTTPS port are routed by the ClientHello's server name and relayed unopened to its backends
 * (port 443 when none is written), which hold the certificate. Usher never sees its requests, so only the settings
 * of a relay apply: {@code to}, {@code policy}, {@code health} (TCP checks), {@code allow}, {@code deny},
 * {@code proxy_protocol}, {@code access_log} and {@code timeouts: {connect, idle}}.
 */
final class PassthroughReader {
    private static final int DEFAULT_PORT = 443;
    private static final Set<String> APPLIES = Set.of("to", "passthrough", "tls", "policy", "health", "allow", "deny",
            "proxy_protocol", "access_log", "timeouts");
    private static final Keys TIMEOUTS = Keys.of("connect", "idle")
            .withAliases(Map.of("dial", "connect", "websocket", "idle", "tunnel", "idle"));

    private final NodeWalker walker;
    private final Values values;
    private final boolean httpsOn;

    PassthroughReader(NodeWalker walker, Values values, boolean httpsOn) {
        this.walker = walker;
        this.values = values;
        this.httpsOn = httpsOn;
    }

    /** True when the site's fields ask for passthrough. */
    boolean wanted(Map<String, Field> fields) {
        Field tls = fields.get("tls");
        boolean byTls = tls != null && tls.value() instanceof ScalarNode s && NodeWalker.STRING.contains(s.getTag())
                && s.getValue().strip().equalsIgnoreCase("passthrough");
        Field flag = fields.get("passthrough");
        boolean byFlag = flag != null && values.bool(flag).orElse(false);
        return byTls || byFlag;
    }

    /** The passthrough site, or nothing after its errors. */
    Optional<Site> read(Field site, SiteNames.SiteName name, Map<String, Field> fields, Timeouts timeouts,
                        boolean accessLogDefault) {
        boolean ok = true;
        if (name.plainHttp()) {
            walker.error(site.keyNode(), site.path(), "a passthrough site is reached over TLS on the HTTPS port; "
                    + "remove the http:// prefix");
            ok = false;
        } else if (!httpsOn) {
            walker.error(site.keyNode(), site.path(), "a passthrough site shares the HTTPS port, which is switched "
                    + "off (listen: https: off)");
            ok = false;
        }
        for (Field f : fields.values()) {
            if (!APPLIES.contains(f.key()) && !APPLIES.contains(fieldKey(fields, f))) {
                walker.error(f.keyNode(), f.path(), "\"" + f.key() + "\" cannot apply to a passthrough site: Usher "
                        + "relays its TLS connections unopened and never sees its requests");
                ok = false;
            }
        }
        ok &= tlsAgrees(fields.get("tls"), fields.get("passthrough"));
        Field to = fields.get("to");
        if (to == null) {
            walker.error(site.keyNode(), site.path(), "missing \"to\": the backend that holds the certificate, as in "
                    + "app:443");
            return Optional.empty();
        }
        Optional<List<UpstreamAddress>> upstreams = StreamsReader.relayUpstreams(walker, values, to.value(),
                to.path(), "a backend address such as app:443, or a list of them", DEFAULT_PORT);
        Balancing balancing = new BalancingReader(walker, values).read(fields.get("policy"),
                Optional.ofNullable(fields.get("health")).filter(f -> !NodeWalker.isNull(f.value())), true);
        Access access = new AccessReader(walker, values).read(fields.get("allow"), fields.get("deny"), null);
        ProxyProtocol proxy = Optional.ofNullable(fields.get("proxy_protocol"))
                .flatMap(f -> StreamsReader.readProxyProtocol(walker, values, f)).orElse(ProxyProtocol.OFF);
        Map<String, Field> t = Optional.ofNullable(fields.get("timeouts")).filter(f -> !NodeWalker.isNull(f.value()))
                .map(f -> walker.fields(f.value(), f.path(), "a mapping of timeouts (connect, idle)", TIMEOUTS))
                .orElse(Map.of());
        Duration connect = Optional.ofNullable(t.get("connect")).flatMap(values::duration).orElse(timeouts.connect());
        Duration idle = Optional.ofNullable(t.get("idle")).flatMap(values::duration)
                .orElse(StreamSetting.DEFAULT_TCP_IDLE);
        boolean accessLog = Optional.ofNullable(fields.get("access_log")).flatMap(values::bool)
                .orElse(accessLogDefault);
        if (!ok || upstreams.isEmpty()) {
            return Optional.empty();
        }
        SiteTraffic d = SiteTraffic.DEFAULTS;
        // A relay's idle timeout is what a tunnelled connection's is for an HTTP site: traffic.websocketIdle.
        SiteTraffic traffic = new SiteTraffic(false, balancing, List.of(), List.of(), false, null, null, access, null,
                d.readTimeout(), d.writeTimeout(), idle, timeouts.idle());
        return Optional.of(new Site(name.name(), false, upstreams.get(), 0, connect, timeouts.response(),
                ErrorList.line(site.keyNode()), ErrorList.column(site.keyNode()), traffic, TlsPolicy.PASSTHROUGH,
                accessLog, proxy));
    }

    /** The key a synonym was filed under (a site's fields map synonyms such as compress to their key). */
    private static String fieldKey(Map<String, Field> fields, Field f) {
        for (Map.Entry<String, Field> e : fields.entrySet()) {
            if (e.getValue() == f) {
                return e.getKey();
            }
        }
        return f.key();
    }

    /** {@code tls:} beside {@code passthrough: true} may only say passthrough; false after the error. */
    private boolean tlsAgrees(Field tls, Field flag) {
        boolean tlsSaysPassthrough = tls != null && tls.value() instanceof ScalarNode s
                && s.getValue().strip().equalsIgnoreCase("passthrough");
        if (tls != null && !tlsSaysPassthrough) {
            walker.error(tls.keyNode(), tls.path(), "a passthrough site's backend holds its certificate, so Usher "
                    + "needs none: remove tls:");
            return false;
        }
        if (flag != null && tlsSaysPassthrough && !values.bool(flag).orElse(true)) {
            walker.error(flag.keyNode(), flag.path(), "passthrough: false disagrees with tls: passthrough; keep one");
            return false;
        }
        return true;
    }
}
