package dev.usher.reload;

import dev.usher.config.Site;
import dev.usher.config.StreamSetting;
import dev.usher.config.UsherConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one reload changed, for the log line and the admin API's answer.
 *
 * @param sitesAdded   names of sites the new config has and the old one did not
 * @param sitesRemoved names of sites the old config had and the new one does not
 * @param sitesChanged names of sites in both whose settings differ (their place in the file does not count)
 * @param settings     global sections that changed, such as {@code timeouts} or {@code limits}
 * @param listeners    listeners bound anew, such as {@code https 127.0.0.1:8443}, or closed
 */
public record Changes(List<String> sitesAdded, List<String> sitesRemoved, List<String> sitesChanged,
                      List<String> settings, List<String> listeners) {
    public Changes {
        sitesAdded = List.copyOf(sitesAdded);
        sitesRemoved = List.copyOf(sitesRemoved);
        sitesChanged = List.copyOf(sitesChanged);
        settings = List.copyOf(settings);
        listeners = List.copyOf(listeners);
    }

    /** The differences between two configs' sites and global settings; no listeners yet. */
    public static Changes between(UsherConfig old, UsherConfig next) {
        Map<String, Site> before = byName(old);
        Map<String, Site> after = byName(next);
        List<String> added = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        after.forEach((name, site) -> {
            Site was = before.get(name);
            if (was == null) {
                added.add(name);
            } else if (!withoutPosition(was).equals(withoutPosition(site))) {
                changed.add(name);
            }
        });
        List<String> removed = before.keySet().stream().filter(name -> !after.containsKey(name)).toList();
        List<String> settings = new ArrayList<>();
        differs(settings, "listen", old.listen(), next.listen());
        differs(settings, "admin", old.admin(), next.admin());
        differs(settings, "data", old.dataDir(), next.dataDir());
        differs(settings, "timeouts", old.timeouts(), next.timeouts());
        differs(settings, "limits", old.limits(), next.limits());
        differs(settings, "trusted_proxies", old.trustedProxies(), next.trustedProxies());
        differs(settings, "acme", old.acme(), next.acme());
        differs(settings, "docker", old.docker(), next.docker());
        differs(settings, "streams", old.streams().stream().map(StreamSetting::withoutPosition).toList(),
                next.streams().stream().map(StreamSetting::withoutPosition).toList());
        return new Changes(added, removed, changed, settings, List.of());
    }

    /** These changes with {@code listener} (a bound or closed listener) added. */
    public Changes withListener(String listener) {
        List<String> more = new ArrayList<>(listeners);
        more.add(listener);
        return new Changes(sitesAdded, sitesRemoved, sitesChanged, settings, more);
    }

    /** True when nothing at all differs. */
    public boolean none() {
        return sitesAdded.isEmpty() && sitesRemoved.isEmpty() && sitesChanged.isEmpty() && settings.isEmpty()
                && listeners.isEmpty();
    }

    /** One line: {@code sites +[a] -[b] ~[c]; settings [limits]; listeners [https 127.0.0.1:8443]}. */
    public String summary() {
        if (none()) {
            return "no change";
        }
        List<String> parts = new ArrayList<>();
        if (!sitesAdded.isEmpty()) {
            parts.add("added " + String.join(", ", sitesAdded));
        }
        if (!sitesRemoved.isEmpty()) {
            parts.add("removed " + String.join(", ", sitesRemoved));
        }
        if (!sitesChanged.isEmpty()) {
            parts.add("changed " + String.join(", ", sitesChanged));
        }
        if (!settings.isEmpty()) {
            parts.add("settings " + String.join(", ", settings));
        }
        if (!listeners.isEmpty()) {
            parts.add("listeners " + String.join(", ", listeners));
        }
        return String.join("; ", parts);
    }

    private static Map<String, Site> byName(UsherConfig config) {
        Map<String, Site> sites = new LinkedHashMap<>();
        config.sites().forEach(site -> sites.put(site.name(), site));
        return sites;
    }

    /** The site with its line and column zeroed: moving a site in the file is no change to it. */
    private static Site withoutPosition(Site s) {
        return s.withoutPosition();
    }

    private static void differs(List<String> into, String name, Object old, Object next) {
        if (!Objects.equals(old, next)) {
            into.add(name);
        }
    }
}
