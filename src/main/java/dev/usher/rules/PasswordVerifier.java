package dev.usher.rules;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs bcrypt (50–200 ms of CPU each) off the event loops, on a small pool with a bounded queue: a flood of login
 * attempts can cost at most {@value #THREADS} cores and is then refused rather than queued without end.
 * Simultaneous checks of the same credentials (a browser opening several connections with the same header) share
 * one verification.
 */
final class PasswordVerifier implements AutoCloseable {
    static final int THREADS = 2;
    static final int QUEUE = 64;

    private final ExecutorService pool;
    private final ConcurrentHashMap<ByteBuffer, CompletableFuture<Boolean>> inFlight = new ConcurrentHashMap<>();
    private final AtomicLong verifications = new AtomicLong();

    PasswordVerifier(ExecutorService pool) {
        this.pool = pool;
    }

    /** The pool Usher runs with: {@value #THREADS} daemon threads at most, idle ones stop after 30 s. */
    static ExecutorService defaultPool() {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory threads = task -> {
            Thread thread = new Thread(task, "usher-bcrypt-" + count.incrementAndGet());
            thread.setDaemon(true);
            thread.setPriority(Thread.NORM_PRIORITY - 1);
            return thread;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), threads, new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** True when the same key is being verified right now: joining it costs no extra bcrypt. */
    boolean isPending(byte[] key) {
        return inFlight.containsKey(ByteBuffer.wrap(key));
    }

    /**
     * Checks {@code password} against {@code hash} on the pool. The future completes on a pool thread with true
     * only for a match; a malformed hash is a mismatch. Returns null when the pool is full or closed. Takes
     * ownership of {@code password} and clears it when done.
     */
    CompletableFuture<Boolean> verify(byte[] key, String hash, char[] password) {
        ByteBuffer id = ByteBuffer.wrap(key);
        CompletableFuture<Boolean> existing = inFlight.get(id);
        if (existing != null) {
            Arrays.fill(password, '\0');
            return existing;
        }
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        existing = inFlight.putIfAbsent(id, result);
        if (existing != null) {
            Arrays.fill(password, '\0');
            return existing;
        }
        try {
            pool.execute(() -> {
                boolean match;
                try {
                    verifications.incrementAndGet();
                    match = OpenBSDBCrypt.checkPassword(hash, password);
                } catch (RuntimeException e) {
                    match = false;
                } finally {
                    Arrays.fill(password, '\0');
                }
                inFlight.remove(id, result);
                result.complete(match);
            });
        } catch (RejectedExecutionException e) {
            Arrays.fill(password, '\0');
            inFlight.remove(id, result);
            // Whoever joined in the meantime gets the same refusal.
            result.complete(null);
            return null;
        }
        return result;
    }

    /** How many bcrypt checks have run (for tests: a cache hit must not add one). */
    long verifications() {
        return verifications.get();
    }

    @Override
    public void close() {
        pool.shutdownNow();
        // Checks that were queued will never run: let their waiters answer (busy) instead of hanging.
        inFlight.values().forEach(pending -> pending.complete(null));
    }
}
