package dev.usher.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @TempDir
    Path tmp;

    @Test
    void writesSecretsWith0600AndCreatesFolders0700() throws Exception {
        Path file = tmp.resolve("a/b/secret.key");
        AtomicFiles.write(file, "s3cret".getBytes(), true);

        assertThat(Files.readString(file)).isEqualTo("s3cret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(mode(tmp.resolve("a"))).isEqualTo("rwx------");
        assertThat(mode(tmp.resolve("a/b"))).isEqualTo("rwx------");
    }

    @Test
    void replacesContentAndLeavesNoTemporaryFiles() throws Exception {
        Path file = tmp.resolve("config.yaml");
        AtomicFiles.write(file, "one".getBytes(), false);
        AtomicFiles.write(file, "two".getBytes(), false);

        assertThat(Files.readString(file)).isEqualTo("two");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isIn("rw-r--r--", "rw-------");
        try (Stream<Path> files = Files.list(tmp)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void leavesExistingFoldersAsTheyAre() throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        AtomicFiles.write(tmp.resolve("x"), new byte[0], false);

        assertThat(mode(tmp)).isEqualTo("rwxr-xr-x");
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
