package dev.usher.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Starting and stopping the Redis processes of {@link RedisServer} and {@link RedisSentinel}: by their own handles. */
final class RedisProcesses {
    /** A readiness check that may read files. */
    @FunctionalInterface
    interface Ready {
        boolean now() throws IOException;
    }

    private RedisProcesses() {
    }

    /** Waits up to 15 s until {@code ready}; fails with {@code log}'s content when the process died or is late. */
    static void await(Process process, Ready ready, Path log, String what) {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!ready.now()) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    stop(process);
                    throw new IllegalStateException(what + " did not come up:\n" + Files.readString(log));
                }
                Thread.sleep(20);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + what + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGTERM, then SIGKILL after 5 s. */
    static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
