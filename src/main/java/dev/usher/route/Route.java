package dev.usher.route;

import dev.usher.config.Site;
import dev.usher.config.SitePath;
import dev.usher.rules.SiteRules;
import dev.usher.upstream.UpstreamGroup;

/**
 * Where requests for one site (or one of its paths) go, and what is checked or changed on the way.
 *
 * @param site      the site as configured, or for a path the site as that path sees it
 * @param upstreams its backends (no pools for a site that only redirects or answers itself)
 * @param rules     access, rate limits, redirects, fixed answers and header edits
 * @param paths     the site's {@code paths:}, or null when it has none (the lookup then never looks at the path)
 * @param path      for the route of one of those paths, that path; null for a site's own route
 */
public record Route(Site site, UpstreamGroup upstreams, SiteRules rules, PathTable paths, SitePath path) {
    /** The route of a site without paths. */
    public Route(Site site, UpstreamGroup upstreams, SiteRules rules) {
        this(site, upstreams, rules, null, null);
    }
}
