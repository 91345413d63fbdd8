package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.ConfigWatcher;
import dev.usher.reload.ReloadCounts;
import dev.usher.reload.Reloader;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * A real Usher started in-process from a config file, with the reload triggers {@code usher run} sets up: the file
 * watcher and the admin endpoint's {@code POST /reload} (SIGHUP aside: a test cannot send it to itself safely).
 */
final class ReloadingUsher implements AutoCloseable {
    final Path file;
    final Usher usher;
    final Reloader reloader;
    final ConfigWatcher watcher;

    private ReloadingUsher(Path file, Usher usher) throws IOException {
        this.file = file;
        this.usher = usher;
        this.reloader = usher.reloadFrom(file);
        this.watcher = ConfigWatcher.start(file, () -> reloader.reloadIfChanged("file change"));
    }

    /** Writes {@code yaml} to {@code folder/usher.yaml} and starts Usher from that file. */
    static ReloadingUsher start(Path folder, String yaml) throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
        return startFrom(file);
    }

    /** Starts Usher from {@code file} as it is (a symlink, say). */
    static ReloadingUsher startFrom(Path file) throws Exception {
        Usher usher = Usher.start(ConfigLoader.load(file), 2, Retry.DEFAULT, Duration.ofSeconds(1));
        try {
            return new ReloadingUsher(file, usher);
        } catch (IOException | RuntimeException e) {
            usher.close();
            throw e;
        }
    }

    /** Rewrites the file in place (truncate and write), as {@code echo > file} or many editors do. */
    void writeInPlace(String yaml) throws IOException {
        Files.writeString(file, yaml, StandardCharsets.UTF_8);
    }

    /** Replaces the file by renaming a new one over it, as vim and atomic-write code do. */
    void writeByRename(String yaml) throws IOException {
        Path temp = file.resolveSibling(".usher.yaml.swp");
        Files.writeString(temp, yaml, StandardCharsets.UTF_8);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    ReloadCounts.Snapshot counts() {
        return usher.reloads().snapshot();
    }

    /** Waits until the reload count (successes plus failures) passes {@code before}; fails after 10 s. */
    ReloadCounts.Snapshot awaitReloadAfter(ReloadCounts.Snapshot before) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            ReloadCounts.Snapshot now = counts();
            if (now.successes() + now.failures() > before.successes() + before.failures()) {
                return now;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no reload within 10 s of a change to " + file + " (counts: " + counts() + ")");
    }

    int port() {
        return usher.httpAddress().getPort();
    }

    /** A port that was free a moment ago. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        watcher.close();
        usher.close();
    }
}
