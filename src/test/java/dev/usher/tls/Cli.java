package dev.usher.tls;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs curl or openssl with a deadline and returns what it printed (stdout and stderr together). */
final class Cli {
    private Cli() {
    }

    static void assumeInstalled(String program) {
        boolean found = false;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            found |= new File(dir, program).canExecute();
        }
        assumeTrue(found, program + " is not installed");
    }

    /** Runs {@code command}; its standard input stays open for {@code stdinOpen}, then reaches end of file. */
    static String run(List<String> command, Duration stdinOpen) throws Exception {
        return run(command, "", stdinOpen);
    }

    /** Runs {@code command} with {@code input} on its standard input, closed {@code stdinOpen} after writing it. */
    static String run(List<String> command, String input, Duration stdinOpen) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
        Thread.sleep(stdinOpen.toMillis());
        process.getOutputStream().close();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("timed out: " + command);
        }
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
