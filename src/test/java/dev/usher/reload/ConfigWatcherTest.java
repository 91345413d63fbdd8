package dev.usher.reload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The config file watcher: debounced but never for longer than its maximum wait, content-based, deaf to other files
 * in the folder, through renames and Kubernetes-style symlink swaps, and with a periodic check for changes that
 * came without events.
 */
class ConfigWatcherTest {
    @TempDir
    Path folder;

    private final AtomicInteger calls = new AtomicInteger();
    private final Semaphore changed = new Semaphore(0);

    private static final ConfigWatcher.Timing FAST = new ConfigWatcher.Timing(Duration.ofMillis(150),
            Duration.ofMillis(600), Duration.ofSeconds(30));

    private ConfigWatcher watch(Path file) throws Exception {
        return watch(file, FAST);
    }

    private ConfigWatcher watch(Path file, ConfigWatcher.Timing timing) throws Exception {
        return ConfigWatcher.start(file, timing, () -> {
            calls.incrementAndGet();
            changed.release();
        });
    }

    @Test
    void aBurstOfWritesMakesOneCallAndTheSameBytesNone() throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, "sites: {}\n");
        try (ConfigWatcher ignored = watch(file)) {
            for (int i = 0; i < 5; i++) {
                Files.writeString(file, "sites: {a.example.com: 127.0.0.1:" + (8000 + i) + "}\n");
                Thread.sleep(20);
            }
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            Files.writeString(file, "sites: {a.example.com: 127.0.0.1:8004}\n"); // same content again
            Files.writeString(folder.resolve("other.txt"), "noise");
            Thread.sleep(600);
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    @Test
    void aFileReplacedByRenameIsSeen() throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, "sites: {}\n");
        try (ConfigWatcher ignored = watch(file)) {
            Path temp = folder.resolve("usher.yaml~");
            Files.writeString(temp, "sites: {b.example.com: 127.0.0.1:80}\n");
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            // Deleted, then created again with new content (some editors do this): one more call, none for the gap.
            Files.delete(file);
            Thread.sleep(400);
            Files.writeString(file, "sites: {c.example.com: 127.0.0.1:80}\n");
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(calls.get()).isEqualTo(2);
        }
    }

    @Test
    void aKubernetesStyleSymlinkSwapIsSeen() throws Exception {
        // usher.yaml -> ..data/usher.yaml, ..data -> ..v1; an update writes ..v2 and renames a new ..data link over.
        Path v1 = Files.createDirectory(folder.resolve("..v1"));
        Files.writeString(v1.resolve("usher.yaml"), "sites: {}\n");
        Files.createSymbolicLink(folder.resolve("..data"), Path.of("..v1"));
        Path file = folder.resolve("usher.yaml");
        Files.createSymbolicLink(file, Path.of("..data/usher.yaml"));
        try (ConfigWatcher ignored = watch(file)) {
            Path v2 = Files.createDirectory(folder.resolve("..v2"));
            Files.writeString(v2.resolve("usher.yaml"), "sites: {d.example.com: 127.0.0.1:80}\n");
            Files.createSymbolicLink(folder.resolve("..data_tmp"), Path.of("..v2"));
            Files.move(folder.resolve("..data_tmp"), folder.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    @Test
    void aSymlinkToAFileElsewhereIsFollowed() throws Exception {
        Path elsewhere = Files.createDirectory(folder.resolve("real"));
        Path target = elsewhere.resolve("usher.yaml");
        Files.writeString(target, "sites: {}\n");
        Path conf = Files.createDirectory(folder.resolve("etc"));
        Path file = conf.resolve("usher.yaml");
        Files.createSymbolicLink(file, target);
        try (ConfigWatcher ignored = watch(file)) {
            Files.writeString(target, "sites: {e.example.com: 127.0.0.1:80}\n");
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void writesToOtherFilesInTheFolderNeitherCallNorPutAReloadOff() throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, "sites: {}\n");
        try (ConfigWatcher ignored = watch(file); Noise noise = new Noise(folder.resolve("access.log"))) {
            Thread.sleep(800);
            assertThat(calls.get()).as("the log's writes alone").isZero();
            Path temp = folder.resolve("usher.yaml.new");
            Files.writeString(temp, "sites: {f.example.com: 127.0.0.1:80}\n");
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).as("reloaded while the log is written").isTrue();
            assertThat(noise.writes()).isGreaterThan(10);
        }
    }

    @Test
    void aFileRewrittenWithoutPauseIsStillReadWithinTheMaximumWait() throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, "sites: {}\n");
        try (ConfigWatcher ignored = watch(file)) {
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            for (int i = 0; System.nanoTime() < end; i++) { // every 50 ms: the 150 ms quiet period never comes
                Files.writeString(file, "sites: {g.example.com: 127.0.0.1:" + (1000 + i) + "}\n");
                Thread.sleep(50);
            }
            assertThat(calls.get()).as("calls during 3 s of writes, at most 600 ms apart").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void aChangeThatCameWithoutEventsIsFoundByThePeriodicCheck() throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, "sites: {}\n");
        // A write through a hard link in another folder changes the file without an event for the watched folder
        // (inotify reports a write to the folder of the name written through), as NFS or a bind mount might.
        Path elsewhere = Files.createDirectory(folder.resolve("elsewhere"));
        Path link = Files.createLink(elsewhere.resolve("same-file"), file);
        ConfigWatcher.Timing periodic = new ConfigWatcher.Timing(Duration.ofMillis(150), Duration.ofMillis(600),
                Duration.ofSeconds(1));
        try (ConfigWatcher ignored = watch(file, periodic)) {
            try (var out = Files.newOutputStream(link, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
                out.write("sites: {h.example.com: 127.0.0.1:80}\n".getBytes());
            }
            assertThat(changed.tryAcquire(5, TimeUnit.SECONDS)).isTrue();
            assertThat(calls.get()).isEqualTo(1);
        }
    }

    @Test
    void watchesTheNamesAlongTheSymlinkChainOnly() throws Exception {
        Path v1 = Files.createDirectory(folder.resolve("..v1"));
        Files.writeString(v1.resolve("usher.yaml"), "sites: {}\n");
        Files.createSymbolicLink(folder.resolve("..data"), Path.of("..v1"));
        Path file = folder.resolve("usher.yaml");
        Files.createSymbolicLink(file, Path.of("..data/usher.yaml"));
        WatchedNames names = WatchedNames.of(file.toAbsolutePath().normalize());
        Path root = folder.toAbsolutePath().normalize();
        assertThat(names.matters(root, Path.of("usher.yaml"))).isTrue();
        assertThat(names.matters(root, Path.of("..data"))).isTrue();
        assertThat(names.matters(root.resolve("..v1"), Path.of("usher.yaml"))).isTrue();
        assertThat(names.matters(root, Path.of("access.log"))).isFalse();
        assertThat(names.matters(root, Path.of("..v1"))).isFalse();
    }

    /** A file appended to every 10 ms, as an access log under load. */
    private static final class Noise implements AutoCloseable {
        private final Thread thread;
        private final AtomicInteger writes = new AtomicInteger();
        private volatile boolean stop;

        Noise(Path log) {
            thread = new Thread(() -> {
                while (!stop) {
                    try {
                        Files.writeString(log, "GET / 200\n", java.nio.file.StandardOpenOption.CREATE,
                                java.nio.file.StandardOpenOption.APPEND);
                        writes.incrementAndGet();
                        Thread.sleep(10);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
            thread.start();
        }

        int writes() {
            return writes.get();
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }
}
