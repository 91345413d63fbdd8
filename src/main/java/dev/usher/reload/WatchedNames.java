package dev.usher.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The names whose events can change what a config path reads: the file's own name in its folder and, for each
 * symlink met on the way to its content, the link's name in its folder (a symlink swap renames a new link over
 * it), then the same for what the link points to. For the Kubernetes ConfigMap layout, {@code usher.yaml →
 * ..data/usher.yaml} with {@code ..data → ..2024_…}: {@code usher.yaml} and {@code ..data} in the mount, and
 * {@code usher.yaml} in the current {@code ..2024_…} folder. Immutable; worked out again after each change.
 */
record WatchedNames(Map<Path, Set<Path>> byFolder) {
    /** Symlinks followed at most (a loop ends here too). */
    static final int MAX_LINKS = 16;

    /** The names for {@code file} (absolute, normalized) as the filesystem is now. */
    static WatchedNames of(Path file) {
        Map<Path, Set<Path>> names = new HashMap<>();
        walk(file, names, new int[]{0});
        Map<Path, Set<Path>> frozen = new HashMap<>();
        names.forEach((folder, set) -> frozen.put(folder, Set.copyOf(set)));
        return new WatchedNames(Map.copyOf(frozen));
    }

    /**
     * Walks {@code path}'s components from the root: a symlink among them is recorded in its folder and its target
     * walked in turn (with the rest of the path appended); a path without symlinks has its last name recorded.
     */
    private static void walk(Path path, Map<Path, Set<Path>> names, int[] links) {
        if (path.getParent() == null) {
            return;
        }
        Path at = path.getRoot();
        for (int i = 0; i < path.getNameCount(); i++) {
            Path next = at.resolve(path.getName(i));
            if (Files.isSymbolicLink(next)) {
                if (links[0]++ >= MAX_LINKS) {
                    return;
                }
                names.computeIfAbsent(at, f -> new HashSet<>()).add(next.getFileName());
                Path target;
                try {
                    target = at.resolve(Files.readSymbolicLink(next));
                } catch (IOException | UnsupportedOperationException e) {
                    return; // gone since: the next check works it out again
                }
                Path rest = i + 1 < path.getNameCount() ? path.subpath(i + 1, path.getNameCount()) : null;
                walk((rest == null ? target : target.resolve(rest)).normalize(), names, links);
                return;
            }
            at = next;
        }
        names.computeIfAbsent(path.getParent(), f -> new HashSet<>()).add(path.getFileName());
    }

    /** The folders to watch. */
    Set<Path> folders() {
        return byFolder.keySet();
    }

    /** Whether an event for {@code name} in {@code folder} can change what the file reads. */
    boolean matters(Path folder, Path name) {
        Set<Path> set = byFolder.get(folder);
        return set != null && set.contains(name);
    }
}
