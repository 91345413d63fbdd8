package dev.usher;

import dev.usher.config.ConfigError;
import dev.usher.config.DiscoveredContainer;
import dev.usher.config.DockerSetting;
import dev.usher.config.LabelSites;
import dev.usher.config.UsherConfig;
import dev.usher.docker.DockerWatcher;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The sites that containers announce with labels, for {@link Usher}: follows the daemon that {@code docker:} names
 * (a {@link DockerWatcher}, only while the setting is there), keeps the containers last listed, and merges their
 * sites into each config read from the file ({@link LabelSites}). A bad label and a name the file also has are
 * logged once, not on every reload, until they go away. When the containers change, {@code onChange} is called (on
 * the watcher's thread), and Usher reloads from the last file config with the new containers.
 */
final class ContainerSites implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ContainerSites.class.getName());

    /** The containers listed by the daemon behind one socket. */
    private record Known(Path socket, List<DiscoveredContainer> containers) {
    }

    private final Runnable onChange;
    /** Guarded by this. */
    private DockerWatcher watcher;
    private volatile Known known = new Known(null, List.of());
    /** Messages logged and still true: not repeated. Guarded by this. */
    private final Set<String> reported = new HashSet<>();

    ContainerSites(Runnable onChange) {
        this.onChange = onChange;
    }

    /**
     * Follows the daemon {@code setting} names, or none (null): a watcher for a new socket replaces the old one.
     * Waits up to {@code firstList} for a new watcher's first list (at start, so that the first config already has
     * the label sites); when it comes later, {@code onChange} is told.
     */
    synchronized void follow(DockerSetting setting, Duration firstList) {
        Path socket = setting == null ? null : setting.socket();
        if (watcher != null && watcher.socket().equals(socket)) {
            return;
        }
        if (watcher != null) {
            watcher.close();
            watcher = null;
        }
        known = new Known(socket, List.of());
        if (socket == null) {
            return;
        }
        watcher = DockerWatcher.start(socket, containers -> changed(socket, containers));
        watcher.awaitFirst(firstList).ifPresent(first -> known = new Known(socket, first));
    }

    private void changed(Path socket, List<DiscoveredContainer> containers) {
        synchronized (this) {
            if (watcher == null || !watcher.socket().equals(socket)) {
                return; // a watcher since replaced
            }
            if (java.util.Objects.equals(known.socket(), socket) && known.containers().equals(containers)) {
                return; // the first list, already in use
            }
            known = new Known(socket, containers);
        }
        onChange.run();
    }

    /** {@code file} with the label sites of the containers known now (none when {@code file} has no docker:). */
    UsherConfig merge(UsherConfig file) {
        Known now = known;
        boolean ours = file.docker() != null && file.docker().socket().equals(now.socket());
        LabelSites.Result result = LabelSites.merge(file, ours ? now.containers() : List.of());
        report(result);
        return result.config();
    }

    /** Logs the errors and notes not logged before; forgets those no longer there, so that they log if they come back. */
    private synchronized void report(LabelSites.Result result) {
        Set<String> current = new HashSet<>();
        for (ConfigError error : result.errors()) {
            String line = error.format();
            current.add(line);
            if (reported.add(line)) {
                LOG.log(Level.ERROR, line + " (this container is not routed; the others are)");
            }
        }
        for (String note : result.notes()) {
            current.add(note);
            if (reported.add(note)) {
                LOG.log(note.contains(" is a site in ") ? Level.WARNING : Level.INFO, note);
            }
        }
        reported.retainAll(current);
    }

    /** The watcher, for tests and the admin view; empty when {@code docker:} is off. */
    synchronized Optional<DockerWatcher> watcher() {
        return Optional.ofNullable(watcher);
    }

    @Override
    public synchronized void close() {
        if (watcher != null) {
            watcher.close();
            watcher = null;
        }
    }
}
