package dev.usher.observe;

import dev.usher.config.Site;
import io.netty.util.internal.PlatformDependent;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Queue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The access log: one JSON line per request ({@link AccessLogFormat}), to standard output or appended to a file.
 *
 * <p>Event loops only put records on a bounded lock-free queue (many producers, one consumer); a daemon thread of
 * its own formats and writes them in batches. When the queue is full the record is dropped and counted
 * ({@link #dropped()}, also a metric, and a warning now and then): logging never blocks an event loop. The writer
 * sleeps while the queue is empty; a producer wakes it only when it sleeps, so under load nobody pays for wake-ups.
 *
 * <p>{@link #reopen()} (SIGUSR1, for logrotate) makes the writer close the file and open it again by name, between two
 * batches; a rotated-away file gets no line after the reopen.
 *
 * <p>Which requests are logged: those of a site whose effective {@code access_log} is on (the top-level setting, or the
 * site's own override); requests that matched no site when the top-level setting is on. Relayed connections and UDP
 * sessions of streams and passthrough sites get a line of their own ({@link StreamRecord}) when theirs is on.
 */
public final class AccessLog implements RequestObserver, StreamObserver, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AccessLog.class.getName());
    /** About a second of lines at 16k requests per second; 16k references is 64 KiB of queue. */
    static final int QUEUE = 16 * 1024;
    private static final int BATCH_BYTES = 64 * 1024;

    private final Path file;
    private final boolean logUnrouted;
    /** {@link RequestRecord}s and {@link StreamRecord}s. */
    private final Queue<Object> queue;
    private final LongAdder dropped = new LongAdder();
    private final LongAdder written = new LongAdder();
    private final Thread writer;
    private volatile boolean sleeping;
    private volatile boolean reopenWanted;
    private volatile boolean running = true;
    private OutputStream out;

    /**
     * Opens {@code file}; lines are written once {@link #start} has started the writer thread.
     *
     * @param file        where to append, or null for standard output
     * @param logUnrouted whether requests that matched no site are logged (the top-level setting is on)
     */
    public AccessLog(Path file, boolean logUnrouted) throws IOException {
        this(file, logUnrouted, QUEUE);
    }

    AccessLog(Path file, boolean logUnrouted, int capacity) throws IOException {
        this.file = file;
        this.logUnrouted = logUnrouted;
        this.queue = PlatformDependent.newFixedMpscQueue(capacity);
        this.out = open();
        this.writer = new Thread(this::run, "usher-access-log");
        writer.setDaemon(true);
    }

    /** Starts the writer thread (once): until then requests queue up. */
    public synchronized void start() {
        if (writer.getState() == Thread.State.NEW && running) {
            writer.start();
        }
    }

    private OutputStream open() throws IOException {
        return file == null ? System.out : new FileOutputStream(file.toFile(), true);
    }

    @Override
    public void requestEnded(RequestRecord request) {
        Site site = request.site();
        if (site == null ? !logUnrouted : !site.accessLog()) {
            return;
        }
        enqueue(request);
    }

    @Override
    public void streamEnded(StreamRecord record) {
        if (record.logged()) {
            enqueue(record);
        }
    }

    private void enqueue(Object line) {
        if (!queue.offer(line)) {
            dropped.increment();
            return;
        }
        if (sleeping) {
            LockSupport.unpark(writer);
        }
    }

    /** Asks the writer to close and reopen the file (after logrotate moved it). Thread-safe; returns at once. */
    public void reopen() {
        reopenWanted = true;
        LockSupport.unpark(writer);
    }

    /** Lines dropped because the queue was full. */
    public long dropped() {
        return dropped.sum();
    }

    /** Lines written so far. */
    public long written() {
        return written.sum();
    }

    /** The file written to, or null for standard output. */
    public Path file() {
        return file;
    }

    private void run() {
        AccessLogFormat format = new AccessLogFormat();
        StringBuilder text = new StringBuilder(BATCH_BYTES + 1024);
        byte[] bytes = new byte[BATCH_BYTES + 1024];
        long droppedReported = 0;
        while (true) {
            if (reopenWanted) {
                reopenWanted = false;
                reopenNow();
            }
            Object r;
            int lines = 0;
            while ((r = queue.poll()) != null) {
                if (r instanceof RequestRecord request) {
                    format.append(request, text);
                } else {
                    format.append((StreamRecord) r, text);
                }
                lines++;
                if (text.length() >= BATCH_BYTES) {
                    bytes = write(text, bytes);
                }
            }
            if (lines > 0) {
                write(text, bytes);
                flush();
                written.add(lines);
                continue;
            }
            long lost = dropped.sum();
            if (lost != droppedReported) {
                LOG.log(Level.WARNING, "access log: {0} line(s) dropped, the writer could not keep up",
                        lost - droppedReported);
                droppedReported = lost;
            }
            if (!running) {
                break;
            }
            sleeping = true;
            if (queue.isEmpty() && !reopenWanted && running) {
                LockSupport.parkNanos(this, 1_000_000_000L);
            }
            sleeping = false;
        }
        if (file != null) {
            closeQuietly(out);
        }
    }

    /** Writes {@code text} (ASCII only) and empties it; returns the byte buffer, grown if it had to be. */
    private byte[] write(StringBuilder text, byte[] bytes) {
        int n = text.length();
        if (bytes.length < n) {
            bytes = new byte[n];
        }
        for (int i = 0; i < n; i++) {
            bytes[i] = (byte) text.charAt(i);
        }
        text.setLength(0);
        try {
            out.write(bytes, 0, n);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "access log: cannot write to {0}: {1}", file, e.toString());
        }
        return bytes;
    }

    private void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "access log: cannot write to {0}: {1}", file, e.toString());
        }
    }

    private void reopenNow() {
        if (file == null) {
            return;
        }
        try {
            OutputStream fresh = open();
            closeQuietly(out);
            out = fresh;
            LOG.log(Level.INFO, "access log reopened: {0}", file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "access log: cannot reopen {0}; writing on to the old file: {1}", file,
                    e.toString());
        }
    }

    private static void closeQuietly(OutputStream stream) {
        try {
            stream.close();
        } catch (IOException ignored) {
            // nothing more to do with a log file that fails to close
        }
    }

    /** Writes what is queued, then stops the writer (waits up to two seconds for it). */
    @Override
    public synchronized void close() {
        running = false;
        if (writer.getState() == Thread.State.NEW) {
            if (file != null) {
                closeQuietly(out); // never started: nothing was written
            }
            return;
        }
        LockSupport.unpark(writer);
        try {
            writer.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
