package dev.usher.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis for tests: Debian's {@code redis-server}, started on a loopback port with its own folder, no
 * persistence unless asked ({@code --save ''}, {@code --appendonly no}), stopped by its own process handle (never a
 * system Redis). {@link #stop} and {@link #start} again keep the port, for outage tests.
 *
 * <p>Missing binaries fail the test (never skip it): {@code apt-get install redis-server}.
 */
public final class RedisServer implements AutoCloseable {
    private static final Path SERVER = Path.of("/usr/bin/redis-server");
    private static final Path CLI = Path.of("/usr/bin/redis-cli");

    private final Path dir;
    private final int port;
    private final List<String> extra;
    private Process process;

    private RedisServer(Path dir, int port, List<String> extra) {
        this.dir = dir;
        this.port = port;
        this.extra = List.copyOf(extra);
    }

    /** A Redis on a free port, keeping its files in {@code dir}; {@code extra}: more redis-server options. */
    public static RedisServer start(Path dir, String... extra) {
        return startOn(dir, Pebble.freePort(), extra);
    }

    /** As {@link #start}, on {@code port}. */
    public static RedisServer startOn(Path dir, int port, String... extra) {
        if (!Files.isExecutable(SERVER) || !Files.isExecutable(CLI)) {
            throw new IllegalStateException(SERVER + " is missing: these tests need a real Redis; run `apt-get "
                    + "install redis-server` and run them again");
        }
        RedisServer redis = new RedisServer(dir, port, List.of(extra));
        redis.start();
        return redis;
    }

    /** Starts (again) on the same port and folder; waits until it answers PING. */
    public synchronized void start() {
        List<String> command = new ArrayList<>(List.of(SERVER.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--daemonize", "no", "--protected-mode", "no"));
        command.addAll(extra);
        Path log = dir.resolve("redis.log");
        try {
            Files.createDirectories(dir);
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server: " + e.getMessage(), e);
        }
        RedisProcesses.await(process, () -> "PONG".equals(cliQuietly("PING")), log, "redis-server on port " + port);
    }

    public int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:PORT/0}. */
    public URI uri() {
        return URI.create("redis://127.0.0.1:" + port + "/0");
    }

    /** What {@code redis-cli -p PORT ARGS...} prints, trimmed. */
    public String cli(String... args) {
        String out = cliQuietly(args);
        if (out == null) {
            throw new IllegalStateException("redis-cli " + String.join(" ", args) + " failed");
        }
        return out;
    }

    private String cliQuietly(String... args) {
        List<String> command = new ArrayList<>(List.of(CLI.toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(port)));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0
                    ? new String(out, StandardCharsets.UTF_8).strip() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Makes Redis write its dump ({@code SAVE}) and gives its bytes: what a stolen backup would hold. */
    public byte[] dump() throws IOException {
        cli("CONFIG", "SET", "dbfilename", "dump.rdb");
        cli("SAVE");
        return Files.readAllBytes(dir.resolve("dump.rdb"));
    }

    /** Stops this Redis (SIGTERM to its own process, then SIGKILL after 5 s); a later {@link #start} brings it back. */
    public synchronized void stop() {
        if (process != null) {
            RedisProcesses.stop(process);
            process = null;
        }
    }

    @Override
    public void close() {
        stop();
    }
}
