package dev.usher.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a real command-line client (curl, nghttp, h2load, openssl) and captures what it printed. A missing program
 * fails the test with the package to install: these tests never skip.
 *
 * @param exitCode the process's exit code
 * @param output   stdout and stderr together
 */
public record Command(int exitCode, String output) {
    /** Runs {@code command}, waiting at most {@code timeoutSeconds}. */
    public static Command run(long timeoutSeconds, List<String> command) {
        String program = command.get(0);
        if (!new java.io.File("/usr/bin/" + program).canExecute() && !program.contains("/")) {
            throw new IllegalStateException(program + " is not installed: apt-get install -y "
                    + switch (program) {
                        case "nghttp", "h2load" -> "nghttp2-client";
                        default -> program;
                    });
        }
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            byte[][] out = new byte[1][];
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    out[0] = process.getInputStream().readAllBytes();
                } catch (IOException e) {
                    out[0] = ("(output unreadable: " + e + ")").getBytes(StandardCharsets.UTF_8);
                }
            });
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            reader.join();
            return new Command(process.exitValue(), new String(out[0], StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code command} with a one-minute limit. */
    public static Command run(String... command) {
        return run(60, List.of(command));
    }
}
