package dev.usher.cert;

import dev.usher.files.AtomicFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An exclusive hold on one lock file in the data directory, so that two Usher processes (or two stores in one
 * process) sharing a data directory do not order the same certificate at once. Held until {@link #close()}; the
 * operating system drops it when the process dies, so a crash never leaves a name locked. The lock file itself stays
 * (deleting it would let a waiter lock a file that no longer has a name) and holds the holder's process id.
 */
final class NameLock implements CertStorage.OrderLock {
    /*
     * File locks belong to the whole process, and on Linux closing *any* channel on a file drops all of the process's
     * locks on it. So a second channel must never be opened on a lock file this process holds: this set, keyed by
     * real path, is that guard. It is process-wide state on purpose, because the thing it guards is process-wide.
     */
    private static final Set<Path> HELD_BY_THIS_PROCESS = ConcurrentHashMap.newKeySet();
    private static final long POLL_MILLIS = 100;

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NameLock(Path file, FileChannel channel, FileLock lock) {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /** Takes the lock on {@code file} (created if missing) if no one holds it; empty when someone does. */
    static Optional<NameLock> tryAcquire(Path file) throws IOException {
        AtomicFiles.createDirectories(file.getParent());
        Path key = file.getParent().toRealPath().resolve(file.getFileName());
        if (!HELD_BY_THIS_PROCESS.add(key)) {
            return Optional.empty();
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(key, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                    AtomicFiles.attributes(key, "rw-------"));
            FileLock lock = ch.tryLock();
            if (lock == null) {
                ch.close();
                HELD_BY_THIS_PROCESS.remove(key);
                return Optional.empty();
            }
            ch.truncate(0).write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n")
                    .getBytes(StandardCharsets.US_ASCII)));
            return Optional.of(new NameLock(key, ch, lock));
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            HELD_BY_THIS_PROCESS.remove(key);
            if (e instanceof OverlappingFileLockException) {
                return Optional.empty(); // cannot happen given the set, but it means "held here" all the same
            }
            throw e;
        }
    }

    /** Like {@link #tryAcquire} but waits up to {@code timeout} for the holder to let go. */
    static Optional<NameLock> acquire(Path file, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<NameLock> lock = tryAcquire(file);
            if (lock.isPresent() || System.nanoTime() - deadline >= 0) {
                return lock;
            }
            Thread.sleep(Math.max(1, Math.min(POLL_MILLIS, (deadline - System.nanoTime()) / 1_000_000)));
        }
    }

    /** The lock file. */
    public Path file() {
        return file;
    }

    /** Lets go of the lock; calling it again does nothing. */
    @Override
    public void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            try {
                lock.release();
                channel.close();
            } finally {
                HELD_BY_THIS_PROCESS.remove(file);
            }
        }
    }
}
