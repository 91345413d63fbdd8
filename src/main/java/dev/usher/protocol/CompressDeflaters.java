package dev.usher.protocol;

import java.util.ArrayDeque;
import java.util.zip.Deflater;

/**
 * Lends raw-deflate {@link Deflater}s to gzip response streams and takes them back for the next response. A new
 * Deflater allocates about 260 KiB of native memory (window, hash chains, pending buffer), zeroes its hash table and
 * frees it all at the end; one reused after {@link Deflater#reset} skips the allocation and the release (the zeroing
 * stays); with the copies {@link CompressGzipEncoder} avoids, about 1 µs of the 29 µs a 4 KiB page's compression
 * took (BENCHMARKS.md, "HTTPS + gzip, CPU per request"). At most {@value #IDLE} wait between responses (about 105 KiB resident each after a small page, most of
 * it the hash table); the rest are ended when given back.
 *
 * <p>Thread-safe: one instance serves every event loop (it lives in the listeners' shared {@link CompressBudget}).
 */
final class CompressDeflaters {
    /** Enough for the one or two event loops of a small server; more only holds memory. */
    static final int IDLE = 2;

    private final int level;
    private final ArrayDeque<Deflater> idle = new ArrayDeque<>(IDLE);

    /** @param level the deflate level every lent Deflater compresses at */
    CompressDeflaters(int level) {
        this.level = level;
    }

    /** A Deflater ready for a new stream: a waiting one, else a new one. */
    Deflater take() {
        Deflater deflater;
        synchronized (idle) {
            deflater = idle.poll();
        }
        return deflater != null ? deflater : new Deflater(level, true);
    }

    /** Takes {@code deflater} back, whatever state its stream was left in; it must not be used by the caller again. */
    void giveBack(Deflater deflater) {
        deflater.reset();
        synchronized (idle) {
            if (idle.size() < IDLE) {
                idle.push(deflater);
                return;
            }
        }
        deflater.end();
    }

    /** Deflaters waiting now, for tests. */
    int idle() {
        synchronized (idle) {
            return idle.size();
        }
    }
}
