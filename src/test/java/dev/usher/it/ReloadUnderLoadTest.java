package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.reload.ReloadCounts;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Editing the config reloads it while the access log in the same folder is written all the time by real load
 * ({@code hey}): the watcher reacts to the config's own names only and its quiet period is bounded, so neither the
 * log's writes nor a rewrite of the config under way can put the reload off. Each way a file gets replaced: an
 * atomic rename (vim, ansible), an in-place write, a symlink swapped for another, and the Kubernetes ConfigMap
 * {@code ..data} swap. Before, no reload happened for as long as the load lasted.
 */
class ReloadUnderLoadTest {
    static Whoami backend;
    @TempDir
    Path folder;
    private ReloadingUsher usher;
    private Process load;

    @BeforeAll
    static void startBackend() {
        backend = Whoami.start("127.0.0.1", 0, "under-load");
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (load != null) {
            load.destroy();
            load.waitFor();
        }
        if (usher != null) {
            usher.close();
        }
    }

    private String config(String extraSite) {
        return """
                listen: {http: "127.0.0.1:%d"}
                access_log: %s
                sites:
                  http://app.test: 127.0.0.1:%d
                %s""".formatted(port, folder.resolve("access.log"), backend.port(), extraSite);
    }

    private int port;

    private void startUsherAndLoad(Path file) throws Exception {
        usher = ReloadingUsher.startFrom(file);
        load = new ProcessBuilder("hey", "-z", "60s", "-c", "4", "-host", "app.test",
                "http://127.0.0.1:" + usher.port() + "/").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        awaitLogGrowing();
    }

    /** Waits until the access log grows, i.e. the load is on and writes next to the config. */
    private void awaitLogGrowing() throws Exception {
        Path log = folder.resolve("access.log");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long first = -1;
        while (System.nanoTime() < deadline) {
            long size = Files.exists(log) ? Files.size(log) : 0;
            if (first < 0 && size > 0) {
                first = size;
            } else if (first > 0 && size > first + 10_000) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the access log did not grow under hey's load");
    }

    /** The new site answers: the reload that took it in happened while the log was being written. */
    private void assertReloadedWith(ReloadCounts.Snapshot before, String site) throws Exception {
        ReloadCounts.Snapshot after = usher.awaitReloadAfter(before);
        assertThat(after.failures()).isEqualTo(before.failures());
        assertThat(load.isAlive()).as("still under load").isTrue();
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: " + site + "\r\n\r\n").read();
            assertThat(r.status()).as(site).isEqualTo(200);
            assertThat(r.body()).contains("under-load");
        }
    }

    private void free() throws IOException {
        port = ReloadingUsher.freePort();
    }

    @Test
    void aFileRenamedOverTheConfigReloads() throws Exception {
        free();
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, config(""));
        startUsherAndLoad(file);
        ReloadCounts.Snapshot before = usher.counts();
        usher.writeByRename(config("  http://renamed.test: 127.0.0.1:" + backend.port() + "\n"));
        assertReloadedWith(before, "renamed.test");
    }

    @Test
    void anInPlaceEditReloads() throws Exception {
        free();
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, config(""));
        startUsherAndLoad(file);
        ReloadCounts.Snapshot before = usher.counts();
        usher.writeInPlace(config("  http://edited.test: 127.0.0.1:" + backend.port() + "\n"));
        assertReloadedWith(before, "edited.test");
    }

    @Test
    void aSymlinkSwappedForAnotherReloads() throws Exception {
        free();
        Path one = folder.resolve("usher-1.yaml");
        Path two = folder.resolve("usher-2.yaml");
        Files.writeString(one, config(""));
        Files.writeString(two, config("  http://swapped.test: 127.0.0.1:" + backend.port() + "\n"));
        Path file = folder.resolve("usher.yaml");
        Files.createSymbolicLink(file, one.getFileName());
        startUsherAndLoad(file);
        ReloadCounts.Snapshot before = usher.counts();
        Path next = folder.resolve("usher.yaml.next");
        Files.createSymbolicLink(next, two.getFileName());
        Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertReloadedWith(before, "swapped.test");
    }

    @Test
    void aConfigMapDataSwapReloads() throws Exception {
        free();
        // The kubelet's layout: usher.yaml -> ..data/usher.yaml, ..data -> ..<timestamp>; an update writes a new
        // timestamped folder, renames a new ..data link over the old one, then deletes the old folder.
        Path v1 = Files.createDirectory(folder.resolve("..2026_12_01_10_00_00.1"));
        Files.writeString(v1.resolve("usher.yaml"), config(""), StandardCharsets.UTF_8);
        Files.createSymbolicLink(folder.resolve("..data"), v1.getFileName());
        Path file = folder.resolve("usher.yaml");
        Files.createSymbolicLink(file, Path.of("..data/usher.yaml"));
        startUsherAndLoad(file);
        ReloadCounts.Snapshot before = usher.counts();
        Path v2 = Files.createDirectory(folder.resolve("..2026_12_01_10_05_00.2"));
        Files.writeString(v2.resolve("usher.yaml"), config("  http://configmap.test: 127.0.0.1:" + backend.port()
                + "\n"), StandardCharsets.UTF_8);
        Files.createSymbolicLink(folder.resolve("..data_tmp"), v2.getFileName());
        Files.move(folder.resolve("..data_tmp"), folder.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        Files.delete(v1.resolve("usher.yaml"));
        Files.delete(v1);
        assertReloadedWith(before, "configmap.test");
        // And the next update too: the watcher now watches the new folder, not the deleted one.
        before = usher.counts();
        Path v3 = Files.createDirectory(folder.resolve("..2026_12_01_10_10_00.3"));
        Files.writeString(v3.resolve("usher.yaml"), config("  http://configmap3.test: 127.0.0.1:" + backend.port()
                + "\n"), StandardCharsets.UTF_8);
        Files.createSymbolicLink(folder.resolve("..data_tmp"), v3.getFileName());
        Files.move(folder.resolve("..data_tmp"), folder.resolve("..data"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        assertReloadedWith(before, "configmap3.test");
    }
}
