package dev.usher.route;

import dev.usher.config.Balancing;
import dev.usher.config.ForwardAuth;
import dev.usher.config.Site;
import dev.usher.config.SitePath;
import dev.usher.config.StaticRoot;
import dev.usher.config.UsherConfig;
import dev.usher.rules.AuthServer;
import dev.usher.rules.RuleServices;
import dev.usher.rules.SiteRules;
import dev.usher.net.Transport;
import dev.usher.statics.StaticFiles;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPool;
import dev.usher.upstream.UpstreamPools;
import io.netty.channel.EventLoopGroup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An immutable snapshot of host → route, compiled from one {@link UsherConfig}. Matching is exact first, then a
 * one-label wildcard ({@code *.example.com} matches {@code a.example.com}, not {@code a.b.example.com} nor
 * {@code example.com}); case-insensitive; the port in Host is ignored.
 */
public final class RouteTable implements AutoCloseable {
    private final UsherConfig config;
    private final Map<String, Route> exact;
    /** Keyed by the part after {@code *.}, e.g. {@code example.com} for {@code *.example.com}. */
    private final Map<String, Route> wildcard;

    private RouteTable(UsherConfig config, Map<String, Route> exact, Map<String, Route> wildcard) {
        this.config = config;
        this.exact = exact;
        this.wildcard = wildcard;
    }

    /**
     * Builds the table for {@code config}, taking backend pools from {@code pools} and rate-limit and auth state from
     * {@code services} (both shared across generations).
     */
    public static RouteTable compile(UsherConfig config, UpstreamPools pools, RuleServices services) {
        return compile(config, pools, services, null);
    }

    /**
     * As {@link #compile(UsherConfig, UpstreamPools, RuleServices)}, keeping the backend groups of {@code previous}
     * (null: none) for sites whose backends and balancing did not change: a reload must not forget which backends
     * are down.
     */
    public static RouteTable compile(UsherConfig config, UpstreamPools pools, RuleServices services,
                                     RouteTable previous) {
        return compile(config, pools, services, site -> true, site -> null, previous);
    }

    /**
     * The table for the plain-HTTP listener: plain-HTTP sites forward as configured; HTTPS sites answer ACME HTTP-01
     * validations from {@code keyAuthorizations} and redirect everything else to https on {@code httpsPort}.
     */
    public static RouteTable compilePlain(UsherConfig config, UpstreamPools pools, RuleServices services,
                                          int httpsPort, Function<String, String> keyAuthorizations) {
        return compilePlain(config, pools, services, httpsPort, keyAuthorizations, null);
    }

    /** As the other {@code compilePlain}, keeping {@code previous}'s unchanged backend groups (see compile). */
    public static RouteTable compilePlain(UsherConfig config, UpstreamPools pools, RuleServices services,
                                          int httpsPort, Function<String, String> keyAuthorizations,
                                          RouteTable previous) {
        return compile(config, pools, services, site -> true, site -> site.https()
                ? new Route(site, null, SiteRules.redirectToHttps(site, httpsPort, keyAuthorizations, services))
                : null, previous);
    }

    /**
     * The table for the HTTPS listener: only the sites whose TLS Usher terminates (a passthrough site's connections
     * never reach HTTP routing, so a request naming it on another site's connection gets 404).
     */
    public static RouteTable compileSecure(UsherConfig config, UpstreamPools pools, RuleServices services) {
        return compileSecure(config, pools, services, null);
    }

    /** As the other {@code compileSecure}, keeping {@code previous}'s unchanged backend groups (see compile). */
    public static RouteTable compileSecure(UsherConfig config, UpstreamPools pools, RuleServices services,
                                           RouteTable previous) {
        return compile(config, pools, services, site -> site.tls().terminated(), site -> null, previous);
    }

    /**
     * @param serves  which of the config's sites this listener serves at all
     * @param special a route to use instead of the site's own, or null for the site's own
     */
    private static RouteTable compile(UsherConfig config, UpstreamPools pools, RuleServices services,
                                      Predicate<Site> serves, Function<Site, Route> special, RouteTable previous) {
        Map<String, Route> exact = new HashMap<>();
        Map<String, Route> wildcard = new HashMap<>();
        for (Site site : config.sites()) {
            if (!serves.test(site)) {
                continue;
            }
            Route route = special.apply(site);
            if (route == null) {
                route = ownRoute(config, site, pools, services, previous);
            }
            if (site.wildcard()) {
                wildcard.put(site.name().substring(2), route);
            } else {
                exact.put(site.name(), route);
            }
        }
        return new RouteTable(config, Map.copyOf(exact), Map.copyOf(wildcard));
    }

    /**
     * A site's route as configured: its backends (kept from {@code previous} when unchanged), its folder, its rules
     * with the forward-auth server they ask, that server as a backend for Authentik's outpost path, and its paths.
     */
    private static Route ownRoute(UsherConfig config, Site site, UpstreamPools pools, RuleServices services,
                                  RouteTable previous) {
        UpstreamGroup upstreams = group(site, null, pools, previous);
        ForwardAuth forwardAuth = site.traffic().forwardAuth();
        AuthServer auth = forwardAuth == null ? null
                : new PooledAuthServer(pools.pool(forwardAuth.server()), site.connectTimeout(), forwardAuth);
        UpstreamGroup outpost = forwardAuth == null || forwardAuth.outpostPath() == null ? null
                : new UpstreamGroup(site.name(), List.of(pools.pool(forwardAuth.server())), Balancing.DEFAULTS);
        StaticFiles files = site.traffic().files() == null ? null : new StaticFiles(site.traffic().files());
        Route own = new Route(site, upstreams, SiteRules.compile(site, config.trustedProxies(), services, auth), null,
                null, files, outpost);
        return site.hasPaths() ? new Route(site, upstreams, own.rules(), paths(own, auth, config, pools, services,
                previous), null, files, outpost) : own;
    }

    /**
     * The routes of a site's paths. A path that names no target of its own shares the site's backend group (and so
     * its health); one with its own backends gets its own group. Rate limits count per site, except on a path that
     * sets its own.
     */
    private static PathTable paths(Route own, AuthServer auth, UsherConfig config, UpstreamPools pools,
                                   RuleServices services, RouteTable previous) {
        Site site = own.site();
        UpstreamGroup siteGroup = own.upstreams();
        List<PathRoute> routes = new ArrayList<>(site.paths().size());
        for (SitePath path : site.paths()) {
            Site seen = path.site();
            UpstreamGroup group = path.ownTarget() ? group(seen, path.pattern(), pools, previous) : siteGroup;
            boolean ownLimit = !java.util.Objects.equals(seen.traffic().rateLimit(), site.traffic().rateLimit());
            SiteRules rules = SiteRules.compile(seen, ownLimit ? site.name() + path.pattern() : site.name(),
                    config.trustedProxies(), services, auth);
            // A path serves the site's folder unless it names its own target (perhaps a folder of its own); it always
            // keeps the site's forward auth.
            StaticRoot root = seen.traffic().files();
            StaticFiles files = root == null ? null : root.equals(site.traffic().files()) ? own.files()
                    : new StaticFiles(root);
            routes.add(new PathRoute(path, new Route(seen, group, rules, null, path, files, own.outpost())));
        }
        return new PathTable(routes);
    }

    /** The backend group for {@code site} (or its path {@code pattern}), null when it forwards nowhere. */
    private static UpstreamGroup group(Site site, String pattern, UpstreamPools pools, RouteTable previous) {
        if (site.upstreams().isEmpty()) {
            return null;
        }
        List<UpstreamPool> group = new ArrayList<>(site.upstreams().size());
        site.upstreams().forEach(u -> group.add(pools.pool(u)));
        UpstreamGroup old = previous == null ? null : previous.groupOf(site, pattern);
        if (old != null && old.sameSetup(group, site.traffic().balancing()) && old.retain()) {
            return old;
        }
        return new UpstreamGroup(pattern == null ? site.name() : site.name() + pattern, group,
                site.traffic().balancing());
    }

    /** The backend group this table has for {@code site}'s name (and path {@code pattern}, if not null), or null. */
    private UpstreamGroup groupOf(Site site, String pattern) {
        Route route = site.wildcard() ? wildcard.get(site.name().substring(2)) : exact.get(site.name());
        if (route == null || pattern == null) {
            return route == null ? null : route.upstreams();
        }
        if (route.paths() == null) {
            return null;
        }
        for (PathRoute path : route.paths().routes()) {
            if (path.pattern().equals(pattern) && path.path().ownTarget()) {
                return path.route().upstreams();
            }
        }
        return null;
    }

    /** Every route of this table (exact names, then wildcards), for metrics and the admin API. */
    public List<Route> routes() {
        List<Route> all = new java.util.ArrayList<>(exact.values());
        all.addAll(wildcard.values());
        return all;
    }

    /** The configuration this table was compiled from. */
    public UsherConfig config() {
        return config;
    }

    /** The route for a Host header value (port and case ignored), or null when no site has that name. */
    public Route lookup(String hostHeader) {
        String host = HostNames.normalize(hostHeader);
        if (host == null) {
            return null;
        }
        Route route = exact.get(host);
        if (route != null || wildcard.isEmpty()) {
            return route;
        }
        int dot = host.indexOf('.');
        return dot > 0 ? wildcard.get(host.substring(dot + 1)) : null;
    }

    /** Starts the active health checks of every site that has them. */
    public void startHealthChecks(EventLoopGroup loops, Transport transport) {
        forEachGroup(g -> g.startHealthChecks(loops, transport));
    }

    /** Stops what this generation runs on its own (health checks); pools are shared and stay. */
    @Override
    public void close() {
        forEachGroup(UpstreamGroup::close);
    }

    private void forEachGroup(java.util.function.Consumer<UpstreamGroup> action) {
        for (Map<String, Route> routes : List.of(exact, wildcard)) {
            for (Route route : routes.values()) {
                if (route.upstreams() != null) {
                    action.accept(route.upstreams());
                }
                if (route.outpost() != null) {
                    action.accept(route.outpost());
                }
                if (route.paths() == null) {
                    continue;
                }
                for (PathRoute path : route.paths().routes()) {
                    if (path.path().ownTarget() && path.route().upstreams() != null) {
                        action.accept(path.route().upstreams());
                    }
                }
            }
        }
    }

}
