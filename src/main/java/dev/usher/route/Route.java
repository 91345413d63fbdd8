package dev.usher.route;

import dev.usher.config.Site;
import dev.usher.rules.SiteRules;
import dev.usher.upstream.UpstreamGroup;

/**
 * Where requests for one site go, and what is checked or changed on the way.
 *
 * @param site      the site as configured
 * @param upstreams its backends (no pools for a site that only redirects or answers itself)
 * @param rules     access, rate limits, redirects, fixed answers and header edits
 */
public record Route(Site site, UpstreamGroup upstreams, SiteRules rules) {
}
