package dev.usher.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Waiting for the access log's writer thread, which writes a request's line shortly after the request. */
final class AccessLogLines {
    private AccessLogLines() {
    }

    /** The first line of {@code log} for {@code uri}; fails after 10 s without one. */
    static String await(Path log, String uri) throws Exception {
        return awaitContaining(log, "\"uri\":\"" + uri + "\"");
    }

    /** The first line of {@code log} that contains {@code needle}; fails after 10 s without one. */
    static String awaitContaining(Path log, String needle) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log)) {
                for (String line : Files.readAllLines(log)) {
                    if (line.contains(needle)) {
                        return line;
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no access log line with " + needle + " in " + log + ": "
                + (Files.exists(log) ? Files.readString(log) : "(no file)"));
    }
}
