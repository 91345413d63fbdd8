package dev.usher.reload;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Calls back when the content of the config file changes. Watches the file's folder rather than the file: editors
 * that save by writing a new file and renaming it over the old one (vim, most "atomic write" code) replace the file's
 * inode, and Kubernetes swaps a {@code ..data} symlink beside it. Any event in the folder (and, when the file is a
 * symlink, in its target's folder) starts a short quiet period; when it ends the file is read and its SHA-256
 * compared with the last one seen, so a burst of writes makes one call, and touching or rewriting the same bytes
 * makes none. A file that is missing for a moment (between a delete and a create) is waited for.
 *
 * <p>Threads: one platform daemon thread takes watch events; callbacks run one at a time on a second daemon
 * thread, so a slow reload only delays the next check.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConfigWatcher.class.getName());
    /** Editors write in bursts (truncate, write, chmod, rename); one reload after the burst is enough. */
    public static final Duration DEBOUNCE = Duration.ofMillis(300);

    private final Path file;
    private final Duration debounce;
    private final Runnable onChange;
    private final WatchService watch;
    private final ScheduledExecutorService checks;
    private final Thread events;
    /** Folders registered with {@link #watch}; touched on the checks thread and at start. */
    private final Set<Path> folders = new HashSet<>();
    /** Only touched on the checks thread (and before it starts). */
    private byte[] lastSeen;
    /** Written on the events thread only. */
    private ScheduledFuture<?> pending;

    private ConfigWatcher(Path file, Duration debounce, Runnable onChange) throws IOException {
        this.file = file.toAbsolutePath().normalize();
        this.debounce = debounce;
        this.onChange = onChange;
        this.watch = this.file.getFileSystem().newWatchService();
        ScheduledThreadPoolExecutor checks = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "config-check"));
        checks.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.checks = checks;
        this.events = daemon(this::takeEvents, "config-watch");
    }

    /**
     * Starts watching {@code file}; {@code onChange} runs after each change of its content.
     *
     * @throws IOException if its folder cannot be watched
     */
    public static ConfigWatcher start(Path file, Runnable onChange) throws IOException {
        return start(file, DEBOUNCE, onChange);
    }

    /** As {@link #start(Path, Runnable)}, with the quiet period given. */
    public static ConfigWatcher start(Path file, Duration debounce, Runnable onChange) throws IOException {
        ConfigWatcher watcher = new ConfigWatcher(file, debounce, onChange);
        try {
            watcher.register();
        } catch (IOException | RuntimeException e) {
            watcher.close();
            throw e;
        }
        watcher.lastSeen = watcher.fingerprint();
        watcher.events.start();
        return watcher;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Registers the file's folder and, following symlinks one hop at a time, each target's folder. */
    private void register() throws IOException {
        Path at = file;
        for (int hops = 0; hops < 8; hops++) {
            Path folder = at.getParent();
            if (folder != null && folders.add(folder)) {
                folder.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                        StandardWatchEventKinds.ENTRY_DELETE);
            }
            if (!Files.isSymbolicLink(at)) {
                return;
            }
            Path target = Files.readSymbolicLink(at);
            at = (folder == null ? target : folder.resolve(target)).normalize();
        }
    }

    private void takeEvents() {
        try {
            while (true) {
                WatchKey key = watch.take();
                key.pollEvents(); // any event in a watched folder (overflow included) means: look again soon
                key.reset();
                if (pending != null) {
                    pending.cancel(false);
                }
                pending = checks.schedule(this::check, debounce.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // closed
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "watching " + file + " stopped", e);
        }
    }

    private void check() {
        try {
            register(); // a symlink swap may point the file into a folder not watched yet
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "cannot watch the folder of " + file + "'s target: " + e);
        }
        byte[] now = fingerprint();
        if (now == null || Arrays.equals(now, lastSeen)) {
            return;
        }
        lastSeen = now;
        try {
            onChange.run();
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "reload after a change of " + file + " failed", e);
        }
    }

    /** The SHA-256 of the file's content (symlinks followed), or null when it cannot be read right now. */
    private byte[] fingerprint() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        } catch (IOException e) {
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops watching; a callback running now finishes (it is not interrupted), none starts after. */
    @Override
    public void close() {
        try {
            watch.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing the watch service: " + e);
        }
        checks.shutdown();
    }
}
