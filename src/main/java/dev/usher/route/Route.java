package dev.usher.route;

import dev.usher.config.Site;
import dev.usher.upstream.UpstreamGroup;

/**
 * Where requests for one site go.
 *
 * @param site      the site as configured
 * @param upstreams its backends
 */
public record Route(Site site, UpstreamGroup upstreams) {
}
