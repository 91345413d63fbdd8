package dev.usher.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real Redis Sentinel for failover tests: Debian's {@code redis-sentinel} on a loopback port, watching one
 * master (quorum 1, down after one second), stopped by its own process handle.
 */
public final class RedisSentinel implements AutoCloseable {
    private static final Path SENTINEL = Path.of("/usr/bin/redis-sentinel");

    private final int port;
    private final Process process;

    private RedisSentinel(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /** A Sentinel that calls the Redis on {@code masterPort} {@code master} and fails it over when it stops. */
    public static RedisSentinel watch(Path dir, String master, int masterPort) {
        if (!Files.isExecutable(SENTINEL)) {
            throw new IllegalStateException(SENTINEL + " is missing: run `apt-get install redis-sentinel` and run "
                    + "the tests again");
        }
        int port = Pebble.freePort();
        Path log = dir.resolve("sentinel.log");
        Process p;
        try {
            Files.createDirectories(dir);
            Path conf = dir.resolve("sentinel.conf"); // Sentinel rewrites its own file: one per test
            Files.writeString(conf, """
                    port %d
                    bind 127.0.0.1
                    protected-mode no
                    dir %s
                    sentinel monitor %s 127.0.0.1 %d 1
                    sentinel down-after-milliseconds %s 1000
                    sentinel failover-timeout %s 5000
                    sentinel parallel-syncs %s 1
                    """.formatted(port, dir, master, masterPort, master, master, master));
            p = new ProcessBuilder(SENTINEL.toString(), conf.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-sentinel: " + e.getMessage(), e);
        }
        RedisProcesses.await(p, () -> Files.readString(log).contains("+monitor master"), log, "redis-sentinel");
        return new RedisSentinel(port, p);
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        RedisProcesses.stop(process);
    }
}
