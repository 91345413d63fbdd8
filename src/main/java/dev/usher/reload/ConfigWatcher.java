package dev.usher.reload;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Calls back when the content of the config file changes. Watches the file's folder rather than the file: editors
 * that save by writing a new file and renaming it over the old one (vim, most "atomic write" code) replace the file's
 * inode, and Kubernetes swaps a {@code ..data} symlink beside it. Only events for the names that lead to the file
 * count: its own name, and each symlink along the way to its content ({@link WatchedNames}); a log or database
 * written all the time in the same folder is ignored. A relevant event starts a quiet period that each further one
 * extends, but never past {@link Timing#maxWait} after the first, so a steady stream of writes cannot put the
 * reload off for ever. When it ends the file is read and its SHA-256 compared with the last one seen, so a burst of
 * writes makes one call, and touching or rewriting the same bytes makes none. A file that is missing for a moment
 * (between a delete and a create) is waited for.
 *
 * <p>Filesystem events are not reliable everywhere (NFS, some container bind mounts send none), so the content is
 * also compared every {@link Timing#safetyCheck}, whatever the events said.
 *
 * <p>Threads: one platform daemon thread takes watch events; checks and callbacks run one at a time on a second
 * daemon thread, so a slow reload only delays the next check.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConfigWatcher.class.getName());

    /**
     * @param quiet       how long after the last relevant event the file is read (editors write in bursts:
     *                    truncate, write, chmod, rename; one reload after the burst is enough)
     * @param maxWait     the longest a burst can put the read off after its first event
     * @param safetyCheck how often the content is compared even without events
     */
    public record Timing(Duration quiet, Duration maxWait, Duration safetyCheck) {
        public static final Timing DEFAULT = new Timing(Duration.ofMillis(300), Duration.ofSeconds(1),
                Duration.ofSeconds(30));
    }

    private final Path file;
    private final Timing timing;
    private final Runnable onChange;
    private final WatchService watch;
    private final ScheduledExecutorService checks;
    private final Thread events;
    /** Watched folders and their keys; touched on the checks thread (and before the threads start). */
    private final Map<Path, WatchKey> folders = new HashMap<>();
    /** What counts; replaced whole by the checks thread, read by the events thread. */
    private volatile WatchedNames names;
    /** Only touched on the checks thread (and before it starts). */
    private byte[] lastSeen;
    /** The burst being waited out; written on the events thread only. */
    private ScheduledFuture<?> pending;
    private long burstStartNanos;
    /** Relevant events so far: a check that sees it move while it runs looks again, so none is missed. */
    private final AtomicLong relevantEvents = new AtomicLong();

    private ConfigWatcher(Path file, Timing timing, Runnable onChange) throws IOException {
        this.file = file.toAbsolutePath().normalize();
        this.timing = timing;
        this.onChange = onChange;
        this.watch = this.file.getFileSystem().newWatchService();
        ScheduledThreadPoolExecutor checks = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "config-check"));
        checks.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        checks.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.checks = checks;
        this.events = daemon(this::takeEvents, "config-watch");
    }

    /**
     * Starts watching {@code file}; {@code onChange} runs after each change of its content.
     *
     * @throws IOException if its folder cannot be watched
     */
    public static ConfigWatcher start(Path file, Runnable onChange) throws IOException {
        return start(file, Timing.DEFAULT, onChange);
    }

    /** As {@link #start(Path, Runnable)}, with the timing given. */
    public static ConfigWatcher start(Path file, Timing timing, Runnable onChange) throws IOException {
        ConfigWatcher watcher = new ConfigWatcher(file, timing, onChange);
        try {
            watcher.register();
        } catch (IOException | RuntimeException e) {
            watcher.close();
            throw e;
        }
        watcher.lastSeen = watcher.fingerprint();
        watcher.events.start();
        long every = timing.safetyCheck().toMillis();
        watcher.checks.scheduleWithFixedDelay(watcher::check, every, every, TimeUnit.MILLISECONDS);
        return watcher;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Works out the names that lead to the file now and watches their folders; stops watching folders no longer on
     * the way (a Kubernetes update deletes the old {@code ..2024_…} folder).
     */
    private void register() throws IOException {
        WatchedNames now = WatchedNames.of(file);
        IOException failed = null;
        for (Path folder : now.folders()) {
            if (!folders.containsKey(folder)) {
                try {
                    folders.put(folder, folder.register(watch, StandardWatchEventKinds.ENTRY_CREATE,
                            StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE));
                } catch (IOException e) {
                    failed = e; // gone since it was looked at, or not readable: the others are still watched
                }
            }
        }
        folders.entrySet().removeIf(entry -> {
            if (now.folders().contains(entry.getKey())) {
                return false;
            }
            entry.getValue().cancel();
            return true;
        });
        names = now;
        if (failed != null) {
            throw failed;
        }
    }

    private void takeEvents() {
        try {
            while (true) {
                WatchKey key = watch.take();
                boolean relevant = false;
                for (WatchEvent<?> event : key.pollEvents()) {
                    relevant |= event.kind() == StandardWatchEventKinds.OVERFLOW // events were lost: look
                            || key.watchable() instanceof Path folder && event.context() instanceof Path name
                            && names.matters(folder, name);
                }
                key.reset();
                if (relevant) {
                    relevantEvents.incrementAndGet();
                    scheduleCheck();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // closed
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "watching " + file + " stopped", e);
        }
    }

    /** Puts the check a quiet period after now, but no later than {@code maxWait} after the burst's first event. */
    private void scheduleCheck() {
        long now = System.nanoTime();
        boolean burstGoingOn = pending != null && !pending.isDone();
        if (!burstGoingOn) {
            burstStartNanos = now;
        }
        long due = Math.min(now + timing.quiet().toNanos(), burstStartNanos + timing.maxWait().toNanos());
        if (burstGoingOn) {
            // Due sooner already (the burst's deadline), or running now: either way it reads the file after this
            // event, or sees relevantEvents move and looks again.
            if (pending.getDelay(TimeUnit.NANOSECONDS) <= due - now || !pending.cancel(false)) {
                return;
            }
        }
        pending = checks.schedule(this::check, Math.max(0, due - now), TimeUnit.NANOSECONDS);
    }

    private void check() {
        long eventsBefore = relevantEvents.get();
        try {
            register(); // a symlink swap may point the file into a folder not watched yet
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "cannot watch the folders on the way to " + file + ": " + e);
        }
        byte[] now = fingerprint();
        if (now != null && !Arrays.equals(now, lastSeen)) {
            lastSeen = now;
            try {
                onChange.run();
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "reload after a change of " + file + " failed", e);
            }
        }
        if (relevantEvents.get() != eventsBefore) {
            checks.schedule(this::check, timing.quiet().toNanos(), TimeUnit.NANOSECONDS);
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
