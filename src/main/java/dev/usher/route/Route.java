package dev.usher.route;

import dev.usher.config.Site;
import dev.usher.config.SitePath;
import dev.usher.rules.SiteRules;
import dev.usher.statics.StaticFiles;
import dev.usher.upstream.UpstreamGroup;

/**
 * Where requests for one site (or one of its paths) go, and what is checked or changed on the way.
 *
 * @param site      the site as configured, or for a path the site as that path sees it
 * @param upstreams its backends (no pools for a site that serves files, redirects or answers itself)
 * @param rules     access, rate limits, forward auth, maintenance, redirects, fixed answers and header edits
 * @param paths     the site's {@code paths:}, or null when it has none (the lookup then never looks at the path)
 * @param path      for the route of one of those paths, that path; null for a site's own route
 * @param files     the folder it serves ({@code root:}), or null
 * @param outpost   the auth server as a backend, for the requests its forward auth sends there itself (Authentik's
 *                  outpost path), or null
 */
public record Route(Site site, UpstreamGroup upstreams, SiteRules rules, PathTable paths, SitePath path,
                    StaticFiles files, UpstreamGroup outpost) {
    /** The route of a site without paths, files or an outpost. */
    public Route(Site site, UpstreamGroup upstreams, SiteRules rules) {
        this(site, upstreams, rules, null, null, null, null);
    }
}
