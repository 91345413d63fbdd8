package dev.usher.admin;

import dev.usher.config.ProxyProtocol;
import dev.usher.config.Site;
import dev.usher.config.StreamSetting;
import dev.usher.config.StreamTarget;
import dev.usher.config.UpstreamAddress;
import dev.usher.config.UsherConfig;
import dev.usher.upstream.BackendStatus;
import dev.usher.upstream.UpstreamGroup;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/streams} (read-only): the running config's streams and passthrough sites, each route with its
 * backends and whether they are up now (from the relays' backend groups, keyed as the stream table keys them:
 * {@code stream :2222}, {@code stream :853 dot.example.com}, {@code site mail.example.com}).
 */
final class StreamsJson {
    private StreamsJson() {
    }

    static String of(UsherConfig config, Map<String, UpstreamGroup> relays) {
        StringBuilder out = new StringBuilder("{\"streams\":[");
        String comma = "";
        for (StreamSetting s : config.streams()) {
            out.append(comma).append("{\"name\":").append(Json.string(s.name()))
                    .append(",\"protocol\":\"").append(s.protocol().label())
                    .append("\",\"max_connections\":").append(s.maxConnections())
                    .append(",\"idle_timeout_seconds\":").append(s.idleTimeout().toSeconds())
                    .append(",\"routes\":[");
            String routeComma = "";
            if (s.target() != null) {
                route(out, null, s.target().upstreams(), s.target().proxyProtocol(), relays.get("stream " + s.name()));
                routeComma = ",";
            }
            for (Map.Entry<String, StreamTarget> named : s.sni().entrySet()) {
                out.append(routeComma);
                route(out, named.getKey(), named.getValue().upstreams(), named.getValue().proxyProtocol(),
                        relays.get("stream " + s.name() + " " + named.getKey()));
                routeComma = ",";
            }
            out.append("]}");
            comma = ",";
        }
        out.append("],\"passthrough\":[");
        comma = "";
        for (Site site : config.sites()) {
            if (site.passthrough()) {
                out.append(comma);
                route(out, site.name(), site.upstreams(), site.proxyProtocol(), relays.get("site " + site.name()));
                comma = ",";
            }
        }
        return out.append("]}").toString();
    }

    private static void route(StringBuilder out, String serverName, List<UpstreamAddress> upstreams,
                              ProxyProtocol proxyProtocol, UpstreamGroup group) {
        Map<UpstreamAddress, BackendStatus> status = new HashMap<>();
        if (group != null) {
            group.status().forEach(b -> status.put(b.address(), b));
        }
        out.append("{\"sni\":").append(serverName == null ? "null" : Json.string(serverName))
                .append(",\"proxy_protocol\":\"").append(proxyProtocol.label()).append("\",\"backends\":[");
        String comma = "";
        for (UpstreamAddress u : upstreams) {
            BackendStatus b = status.get(u);
            out.append(comma).append("{\"address\":").append(Json.string(u.authority())).append(",\"up\":")
                    .append(b == null ? "null" : String.valueOf(b.up())).append('}');
            comma = ",";
        }
        out.append("]}");
    }
}
