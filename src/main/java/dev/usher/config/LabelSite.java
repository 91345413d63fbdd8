package dev.usher.config;

import java.util.List;

/**
 * Where a site announced by container labels comes from (the {@link Site} itself is among
 * {@link UsherConfig#sites()}): for the admin UI, the API and the metrics.
 *
 * @param name     the site's name, as in {@link Site#name()}
 * @param backends the containers that serve it, in name order, each with the network it is reached on
 */
public record LabelSite(String name, List<Backend> backends) {
    public LabelSite {
        backends = List.copyOf(backends);
    }

    /** One container behind a label site. */
    public record Backend(String container, String network, UpstreamAddress address) {
    }
}
