package dev.usher.it;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Usher's native executable ({@code target/native-image/usher}, made by {@code ./usher build --native}) running
 * {@code usher run --config FILE} as a process of its own; what it prints goes to a log file. The executable is
 * named by the system property {@code usher.native} (run-tests sets it); without it the native tests fail and say so.
 */
final class NativeUsher implements AutoCloseable {
    final Process process;
    final Path config;
    final Path log;

    private NativeUsher(Process process, Path config, Path log) {
        this.process = process;
        this.config = config;
        this.log = log;
    }

    /** The executable under test. */
    static Path executable() {
        String path = System.getProperty("usher.native");
        if (path == null || path.isBlank()) {
            throw new AssertionError("-Dusher.native=PATH names no native executable: build it with "
                    + "`./usher build --native` and run these tests as run-tests does (USHER_NATIVE_TESTS=1)");
        }
        Path exe = Path.of(path).toAbsolutePath();
        if (!Files.isExecutable(exe)) {
            throw new AssertionError(exe + " is not an executable file (build it with `./usher build --native`)");
        }
        return exe;
    }

    /** Runs the executable with {@code args} to its end; returns exit code and output. */
    static dev.usher.testing.Command command(String... args) {
        List<String> command = new ArrayList<>(List.of(executable().toString()));
        command.addAll(List.of(args));
        return dev.usher.testing.Command.run(60, command);
    }

    /**
     * Writes {@code yaml} to {@code dir/usher.yaml}, starts {@code usher run} on it and waits until {@code port}
     * accepts connections and Usher has said it is listening (its start is then complete).
     */
    static NativeUsher start(Path dir, String yaml, int port) throws Exception {
        return start(dir, yaml, port, List.of());
    }

    /** As {@link #start(Path, String, int)}, with {@code options} ({@code -Dkey=value}, {@code -Xmx…}) before the command. */
    static NativeUsher start(Path dir, String yaml, int port, List<String> options) throws Exception {
        Path config = dir.resolve("usher.yaml");
        Files.writeString(config, yaml);
        Path log = Files.createTempFile(dir, "native-usher", ".log");
        List<String> command = new ArrayList<>(List.of(executable().toString()));
        command.addAll(options);
        command.addAll(List.of("run", "--config", config.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        NativeUsher usher = new NativeUsher(p, config, log);
        usher.awaitPort(port);
        // listeners are bound (so connectable) before they accept, and the local CA's files are written meanwhile
        usher.awaitLine("listening on");
        return usher;
    }

    String output() throws IOException {
        return Files.readString(log);
    }

    /** Waits until a line containing {@code text} was printed; returns that line (as {@link UsherProcess} does). */
    String awaitLine(String text) throws Exception {
        return new UsherProcess(process, 0, log).awaitLine(text);
    }

    private void awaitPort(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the native executable exited with " + process.exitValue() + ":\n" + output());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                Thread.sleep(10);
            }
        }
        throw new AssertionError("port " + port + " not open after 20 s:\n" + output());
    }

    /** SIGHUP: reload the config file now. */
    void hangup() throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(process.pid())).start();
        if (kill.waitFor() != 0) {
            throw new AssertionError("kill -HUP failed");
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
