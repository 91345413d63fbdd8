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

/** The config file watcher: debounced, content-based, through renames and Kubernetes-style symlink swaps. */
class ConfigWatcherTest {
    @TempDir
    Path folder;

    private final AtomicInteger calls = new AtomicInteger();
    private final Semaphore changed = new Semaphore(0);

    private ConfigWatcher watch(Path file) throws Exception {
        return ConfigWatcher.start(file, Duration.ofMillis(150), () -> {
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
}
