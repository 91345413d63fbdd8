package dev.usher.rules;

/**
 * A fixed-size table of token buckets keyed by (site, client IP), shared by all event loops. Memory never grows: a
 * new key takes a slot from its set of {@value #WAYS}, preferring an empty one, then one whose bucket has refilled
 * (such an entry carries no information, so dropping it changes nothing), then the one closest to refilled. The
 * clients that are furthest over their limit are thus the last to be forgotten.
 *
 * <p>Each bucket is one number, as in GCRA (the generic cell rate algorithm): the theoretical arrival time
 * {@code tat}, the instant at which the bucket will be full again. A request at {@code now} is allowed when
 * {@code max(tat, now) - now <= tolerance}, and then moves {@code tat} on by one interval. With
 * {@code tolerance = burst * interval} that is a bucket of {@code burst + 1} tokens refilled at one per interval.
 *
 * <p>Thread-safety: each set is guarded by one of a few striped monitors; a lookup touches one set only, and
 * allocates nothing. Times are {@link System#nanoTime()} values, compared by subtraction to survive its wrap.
 */
final class TokenBuckets {
    static final int WAYS = 8;
    private static final int STRIDE = 4;
    private static final int TAG = 0;
    private static final int HI = 1;
    private static final int LO = 2;
    private static final int TAT = 3;

    /** Per slot: tag (key space + 1; 0 = empty), address hi, address lo, tat. */
    private final long[] table;
    private final int setMask;
    private final Object[] locks;
    private final long seed;

    /**
     * @param slots a power of two, at least {@value #WAYS}
     * @param seed  random per process, so that nobody can aim many addresses at one set from outside
     */
    TokenBuckets(int slots, long seed) {
        if (slots < WAYS || Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two >= " + WAYS + ": " + slots);
        }
        this.table = new long[slots * STRIDE];
        int sets = slots / WAYS;
        this.setMask = sets - 1;
        this.locks = new Object[Math.min(64, sets)];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
        this.seed = seed;
    }

    /**
     * Takes a token for the key. Returns 0 when allowed, otherwise the nanoseconds until a token will be there (and
     * takes nothing).
     *
     * @param space     which bucket family (a site's id), at least 0
     * @param interval  nanoseconds per token, at least 1
     * @param tolerance how far ahead of time {@code tat} may run: {@code burst * interval}
     */
    long take(int space, long hi, long lo, long now, long interval, long tolerance) {
        int set = set(space, hi, lo);
        long tag = space + 1L;
        int base = set * WAYS * STRIDE;
        synchronized (locks[set % locks.length]) {
            int slot = find(base, tag, hi, lo);
            long tat = now;
            if (slot >= 0) {
                long stored = table[slot + TAT];
                if (stored - now > 0) {
                    tat = stored;
                }
            }
            long wait = tat - now - tolerance;
            if (wait > 0) {
                return wait;
            }
            if (slot < 0) {
                slot = victim(base, now);
                table[slot + TAG] = tag;
                table[slot + HI] = hi;
                table[slot + LO] = lo;
            }
            table[slot + TAT] = tat + interval;
            return 0;
        }
    }

    /** Gives back a token taken earlier (a no-op when the entry has been forgotten since). */
    void refund(int space, long hi, long lo, long interval) {
        int set = set(space, hi, lo);
        int base = set * WAYS * STRIDE;
        synchronized (locks[set % locks.length]) {
            int slot = find(base, space + 1L, hi, lo);
            if (slot >= 0) {
                table[slot + TAT] -= interval;
            }
        }
    }

    /** How many keys the table can hold; fixed. */
    int capacity() {
        return table.length / STRIDE;
    }

    /** How many slots hold a key now (for tests and metrics). */
    int occupied() {
        int count = 0;
        for (int set = 0; set <= setMask; set++) {
            synchronized (locks[set % locks.length]) {
                for (int w = 0; w < WAYS; w++) {
                    if (table[(set * WAYS + w) * STRIDE + TAG] != 0) {
                        count++;
                    }
                }
            }
        }
        return count;
    }

    private int find(int base, long tag, long hi, long lo) {
        for (int slot = base; slot < base + WAYS * STRIDE; slot += STRIDE) {
            if (table[slot + TAG] == tag && table[slot + LO] == lo && table[slot + HI] == hi) {
                return slot;
            }
        }
        return -1;
    }

    private int victim(int base, long now) {
        int best = base;
        long bestScore = Long.MAX_VALUE;
        for (int slot = base; slot < base + WAYS * STRIDE; slot += STRIDE) {
            if (table[slot + TAG] == 0) {
                return slot;
            }
            // How long until this bucket is full again; at or below 0 it already is.
            long score = table[slot + TAT] - now;
            if (score < bestScore) {
                bestScore = score;
                best = slot;
            }
        }
        return best;
    }

    private int set(int space, long hi, long lo) {
        long h = mix(seed ^ (space * 0x9E37_79B9_7F4A_7C15L));
        h = mix(h ^ hi);
        h = mix(h ^ lo);
        return (int) h & setMask;
    }

    /** The MurmurHash3 finalizer: every input bit affects every output bit. */
    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xFF51_AFD7_ED55_8CCDL;
        x ^= x >>> 33;
        x *= 0xC4CE_B9FE_1A85_EC53L;
        x ^= x >>> 33;
        return x;
    }
}
