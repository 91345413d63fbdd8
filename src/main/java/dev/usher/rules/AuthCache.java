package dev.usher.rules;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Remembers recently verified basic-auth credentials so that bcrypt runs about once per user per
 * {@link #TTL_NANOS}, not once per request. A key is SHA-256 over the bcrypt hash and the decoded
 * {@code user:password}: the password itself is never stored, and a changed hash (a reload with a new password)
 * misses. Only successes are remembered; failures are the brute-force limiter's business.
 *
 * <p>Bounded: {@value #SLOTS} slots in sets of {@value #WAYS}; a new key replaces an expired entry, else the one
 * that expires first. One monitor guards the table: every operation is a few array reads, and only sites with
 * basic auth come here.
 */
final class AuthCache {
    static final int SLOTS = 1024;
    static final int WAYS = 4;
    static final long TTL_NANOS = 10L * 60 * 1_000_000_000L;
    private static final int STRIDE = 5;

    /** Per slot: the first four words of the digest, then the nanoTime until which it is good. */
    private final long[] table = new long[SLOTS * STRIDE];
    private final boolean[] used = new boolean[SLOTS];
    /** MessageDigest is not thread-safe and costly to look up; one per event loop thread. */
    private final ThreadLocal<MessageDigest> sha256 = ThreadLocal.withInitial(AuthCache::newDigest);

    /** The cache key for verifying {@code user:password} (as sent, decoded from base64) against {@code hash}. */
    byte[] key(byte[] hash, byte[] userColonPassword) {
        MessageDigest digest = sha256.get();
        digest.update(hash);
        // A bcrypt hash never contains NUL, so the boundary between the two parts is unambiguous.
        digest.update((byte) 0);
        digest.update(userColonPassword);
        return digest.digest();
    }

    static byte[] hashBytes(String bcryptHash) {
        return bcryptHash.getBytes(StandardCharsets.UTF_8);
    }

    synchronized boolean verified(byte[] key, long now) {
        int slot = find(key);
        return slot >= 0 && table[slot * STRIDE + 4] - now > 0;
    }

    /** Marks the key verified for {@link #TTL_NANOS} from {@code now}. */
    synchronized void remember(byte[] key, long now) {
        int slot = find(key);
        if (slot < 0) {
            slot = victim(key, now);
        }
        int at = slot * STRIDE;
        for (int i = 0; i < 4; i++) {
            table[at + i] = word(key, i);
        }
        table[at + 4] = now + TTL_NANOS;
        used[slot] = true;
    }

    private int find(byte[] key) {
        int first = set(key) * WAYS;
        for (int slot = first; slot < first + WAYS; slot++) {
            int at = slot * STRIDE;
            if (used[slot] && table[at] == word(key, 0) && table[at + 1] == word(key, 1)
                    && table[at + 2] == word(key, 2) && table[at + 3] == word(key, 3)) {
                return slot;
            }
        }
        return -1;
    }

    private int victim(byte[] key, long now) {
        int first = set(key) * WAYS;
        int best = first;
        long bestExpiry = Long.MAX_VALUE;
        for (int slot = first; slot < first + WAYS; slot++) {
            if (!used[slot]) {
                return slot;
            }
            long left = table[slot * STRIDE + 4] - now;
            if (left < bestExpiry) {
                bestExpiry = left;
                best = slot;
            }
        }
        return best;
    }

    /** The digest is already uniformly random; its last bytes pick the set. */
    private static int set(byte[] key) {
        return (key[31] & 0xFF) % (SLOTS / WAYS);
    }

    private static long word(byte[] key, int index) {
        long value = 0;
        for (int i = index * 8; i < index * 8 + 8; i++) {
            value = (value << 8) | (key[i] & 0xFFL);
        }
        return value;
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
