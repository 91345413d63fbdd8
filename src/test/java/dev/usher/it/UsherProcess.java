package dev.usher.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code usher run} as a real child process on this test's classpath (so it can be killed with real signals or run
 * under a real resource limit); what it prints goes to {@code log}.
 */
record UsherProcess(Process process, int port, Path log) implements AutoCloseable {
    /**
     * Starts {@code usher run --config config}, with {@code prefix} (e.g. {@code prlimit --nofile=256}) before the
     * JVM, and waits for its "listening on" line.
     */
    static UsherProcess start(Path config, Path log, List<String> prefix, String... jvmOptions) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.usher.Main", "run", "--config",
                config.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        UsherProcess starting = new UsherProcess(p, 0, log);
        try {
            Matcher m = Pattern.compile("listening on http://[^ ]*:(\\d+)").matcher(starting.awaitLine("listening on"));
            if (!m.find()) {
                throw new AssertionError("no port in: " + starting.output());
            }
            return new UsherProcess(p, Integer.parseInt(m.group(1)), log);
        } catch (Exception | AssertionError e) {
            starting.kill(); // a process that did not come up must not outlive the test
            throw e;
        }
    }

    String output() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Waits (up to 60 s: a JVM start on a loaded 2-CPU machine) until a line with {@code text} was printed. */
    String awaitLine(String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            for (String line : output().split("\n")) {
                if (line.contains(text)) {
                    return line;
                }
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no line with \"" + text + "\" in:\n" + output());
    }

    /** The lines printed so far that contain {@code text}. */
    long count(String text) throws IOException {
        return output().lines().filter(line -> line.contains(text)).count();
    }

    /** SIGKILL, and waits for the end. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            kill();
        }
    }
}
