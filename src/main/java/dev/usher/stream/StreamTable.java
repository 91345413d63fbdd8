package dev.usher.stream;

import dev.usher.config.Cidr;
import dev.usher.config.ListenAddress;
import dev.usher.config.Site;
import dev.usher.config.StreamSetting;
import dev.usher.config.StreamTarget;
import dev.usher.config.UsherConfig;
import dev.usher.net.Transport;
import dev.usher.rules.Networks;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPool;
import dev.usher.upstream.UpstreamPools;
import io.netty.channel.EventLoopGroup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relays of one config, compiled: each stream by its address and transport (its plan, and one per server name
 * when it routes by SNI), and the passthrough sites of the HTTPS port by server name. Immutable; one per config
 * generation. Backend groups (with what they know of their backends' health) are kept from the previous table for
 * every relay whose backends and balancing did not change, as route tables keep theirs.
 */
public final class StreamTable implements AutoCloseable {
    /** An empty table: no stream, no passthrough site. */
    public static final StreamTable EMPTY = new StreamTable(Map.of(), new SniTable<>(), Map.of());

    /**
     * One compiled stream.
     *
     * @param setting the stream as configured
     * @param plan    where connections go when the stream does not route by name, or the name is not listed; null
     *                when only listed names are served
     * @param sni     server name → plan; empty when the stream does not read the ClientHello
     */
    record Compiled(StreamSetting setting, RelayPlan plan, SniTable<RelayPlan> sni) {
        /** The plan for a connection that asked for {@code serverName} (null: sent none): listed, else the default. */
        RelayPlan planFor(String serverName) {
            RelayPlan named = sni.lookup(serverName);
            return named != null ? named : plan;
        }

        boolean routesByName() {
            return !sni.isEmpty();
        }
    }

    private final Map<String, Compiled> streams;
    private final SniTable<RelayPlan> passthrough;
    /** Every backend group by what it serves ({@code stream :853 dot.example.com}), for reuse and health checks. */
    private final Map<String, UpstreamGroup> groups;

    private StreamTable(Map<String, Compiled> streams, SniTable<RelayPlan> passthrough,
                        Map<String, UpstreamGroup> groups) {
        this.streams = streams;
        this.passthrough = passthrough;
        this.groups = groups;
    }

    /**
     * Compiles {@code config}'s streams and passthrough sites with backend pools from {@code pools}, keeping the
     * groups of {@code previous} (may be null) whose setup did not change.
     */
    public static StreamTable compile(UsherConfig config, UpstreamPools pools, StreamTable previous) {
        Map<String, UpstreamGroup> groups = new LinkedHashMap<>();
        Map<String, Compiled> streams = new HashMap<>();
        for (StreamSetting s : config.streams()) {
            Networks allow = Networks.of(s.allow());
            Networks deny = Networks.of(s.deny());
            RelayPlan plan = s.target() == null ? null
                    : plan(s, s.name(), s.target(), "stream " + s.name(), allow, deny, pools, previous, groups);
            SniTable<RelayPlan> sni = new SniTable<>();
            s.sni().forEach((name, target) -> sni.put(name, plan(s, s.name(), target, "stream " + s.name() + " "
                    + name, allow, deny, pools, previous, groups)));
            streams.put(key(s.listen(), s.protocol()), new Compiled(s, plan, sni));
        }
        SniTable<RelayPlan> passthrough = new SniTable<>();
        for (Site site : config.sites()) {
            if (site.passthrough()) {
                passthrough.put(site.name(), passthroughPlan(site, pools, previous, groups));
            }
        }
        return new StreamTable(Map.copyOf(streams), passthrough, groups);
    }

    private static RelayPlan plan(StreamSetting s, String label, StreamTarget target, String groupKey,
                                  Networks allow, Networks deny, UpstreamPools pools, StreamTable previous,
                                  Map<String, UpstreamGroup> groups) {
        List<UpstreamPool> backends = new ArrayList<>();
        target.upstreams().forEach(u -> backends.add(pools.pool(u)));
        UpstreamGroup group = keptOrNew(previous, groupKey, label, backends, target.balancing());
        groups.put(groupKey, group);
        return new RelayPlan(label, s.protocol().label(), group, target.proxyProtocol(), s.connectTimeout(),
                s.idleTimeout(), allow, deny, s.accessLog());
    }

    private static RelayPlan passthroughPlan(Site site, UpstreamPools pools, StreamTable previous,
                                             Map<String, UpstreamGroup> groups) {
        List<UpstreamPool> backends = new ArrayList<>();
        site.upstreams().forEach(u -> backends.add(pools.pool(u)));
        String key = "site " + site.name();
        UpstreamGroup group = keptOrNew(previous, key, site.name(), backends, site.traffic().balancing());
        groups.put(key, group);
        List<Cidr> allow = site.traffic().access().allow();
        List<Cidr> deny = site.traffic().access().deny();
        // A passthrough site's relay idle timeout is its tunnel one (see PassthroughReader).
        return new RelayPlan(site.name(), "tls-passthrough", group, site.proxyProtocol(), site.connectTimeout(),
                site.traffic().websocketIdle(), Networks.of(allow), Networks.of(deny), site.accessLog());
    }

    private static UpstreamGroup keptOrNew(StreamTable previous, String key, String label,
                                           List<UpstreamPool> backends, dev.usher.config.Balancing balancing) {
        UpstreamGroup old = previous == null ? null : previous.groups.get(key);
        if (old != null && old.sameSetup(backends, balancing) && old.retain()) {
            return old;
        }
        return new UpstreamGroup(label, backends, balancing);
    }

    static String key(ListenAddress listen, StreamSetting.Protocol protocol) {
        return protocol.label() + " " + listen;
    }

    /** The stream listening on {@code listen} over {@code protocol}, or null when this config has none there. */
    Compiled stream(ListenAddress listen, StreamSetting.Protocol protocol) {
        return streams.get(key(listen, protocol));
    }

    /** The passthrough site serving {@code serverName}, or null. */
    RelayPlan passthrough(String serverName) {
        return passthrough.lookup(serverName);
    }

    /** True when some site on the HTTPS port is relayed unopened. */
    public boolean anyPassthrough() {
        return !passthrough.isEmpty();
    }

    /** Every backend group, by what it serves ({@code stream :2222}, {@code site mail.example.com}). */
    public Map<String, UpstreamGroup> groups() {
        return java.util.Collections.unmodifiableMap(groups);
    }

    /** Starts the active health checks of every relay that has them. */
    public void startHealthChecks(EventLoopGroup loops, Transport transport) {
        groups.values().forEach(g -> g.startHealthChecks(loops, transport));
    }

    /** Stops this table's health checks (groups shared with the next table stay). */
    @Override
    public void close() {
        groups.values().forEach(UpstreamGroup::close);
    }
}
