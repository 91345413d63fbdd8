package dev.usher.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code https://} backends whose certificate is not checked ({@code upstream_tls.insecure_skip_verify}), one
 * warning each: logged when a config is loaded and printed by {@code usher check}, since anyone between Usher and
 * such a backend can pose as it.
 */
public final class InsecureBackends {
    private InsecureBackends() {
    }

    /** {@code "app.example.com: https://10.0.0.5:8006: ..."}, in config order, each once. */
    public static List<String> warnings(UsherConfig config) {
        Set<String> warnings = new LinkedHashSet<>();
        for (Site site : config.sites()) {
            add(site.name(), site, warnings);
            for (SitePath path : site.paths()) {
                if (path.site().upstreams().equals(site.upstreams())) {
                    continue; // the site's own backends, warned of already
                }
                add(site.name() + " " + path.pattern(), path.site(), warnings);
            }
        }
        return new ArrayList<>(warnings);
    }

    private static void add(String where, Site site, Set<String> warnings) {
        for (UpstreamAddress backend : site.upstreams()) {
            if (backend.scheme() == UpstreamScheme.HTTPS && backend.tls().insecureSkipVerify()) {
                warnings.add(where + ": " + backend + ": upstream_tls.insecure_skip_verify is on, so its "
                        + "certificate is not checked (anyone on the way can pose as it; give ca: instead)");
            }
        }
    }
}
