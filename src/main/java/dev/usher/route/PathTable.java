package dev.usher.route;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A site's compiled {@code paths:}. The longest pattern that matches wins, whatever the order in the file; of an
 * exact path and a prefix of the same length, the exact one. Matched on the normalised path ({@link RequestPaths});
 * a handful of entries are tried in order of length, which allocates nothing.
 */
public final class PathTable {
    private final PathRoute[] byLength;

    PathTable(List<PathRoute> routes) {
        List<PathRoute> sorted = new ArrayList<>(routes);
        sorted.sort(Comparator.comparingInt(PathRoute::literalLength).reversed()
                .thenComparing(r -> r.path().match() != dev.usher.config.SitePath.Match.EXACT));
        this.byLength = sorted.toArray(PathRoute[]::new);
    }

    /** The entry for a normalised request target, or null when none matches (the site's default serves it). */
    public PathRoute find(String uri) {
        int end = RequestPaths.pathEnd(uri);
        for (PathRoute route : byLength) {
            if (route.matches(uri, end)) {
                return route;
            }
        }
        return null;
    }

    /**
     * Where to redirect a request no entry matched whose path is a prefix entry without its final slash ({@code /api}
     * for {@code /api/}), as nginx does for such locations: the same target with the slash, query kept. Null
     * otherwise.
     */
    public String slashRedirect(String uri) {
        int end = RequestPaths.pathEnd(uri);
        for (PathRoute route : byLength) {
            if (route.isPrefixWithoutSlash(uri, end)) {
                return uri.substring(0, end) + "/" + uri.substring(end);
            }
        }
        return null;
    }

    /** The entries, longest first. */
    public List<PathRoute> routes() {
        return List.of(byLength);
    }
}
