package dev.usher.cert;

import dev.usher.files.AtomicFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A certificate save killed between its two renames (the new key in place, the new chain still in its temporary
 * file, as KillDuringWritesTest found with SIGKILL) is finished by the next load instead of being taken for damage,
 * moved aside and ordered again.
 */
class InterruptedSaveTest {
    @TempDir
    Path data;

    @Test
    void theNewChainInItsTemporaryFileIsPutInPlace() throws Exception {
        CertStore store = new CertStore(data);
        LocalCa ca = LocalCa.open(store);
        CertifiedKey old = ca.issue("app.localhost");
        store.save(LocalCa.ID, "app.localhost", old);
        CertifiedKey fresh = ca.issue("app.localhost");
        Path dir = data.resolve("certificates/local/app.localhost");
        // What save() leaves when killed right after its first rename:
        Path certTemp = AtomicFiles.writeTemp(dir.resolve("cert.pem"),
                Pem.certificates(fresh.chain()).getBytes(StandardCharsets.US_ASCII), false);
        AtomicFiles.writeTemp(dir.resolve("cert.pem"), "-----BEGIN CERT".getBytes(StandardCharsets.US_ASCII), false);
        AtomicFiles.write(dir.resolve("key.pem"), Pem.privateKey(fresh.key()).getBytes(StandardCharsets.US_ASCII),
                true);

        assertThat(store.load(LocalCa.ID, "app.localhost")).get().extracting(CertifiedKey::sha256)
                .isEqualTo(fresh.sha256());
        assertThat(certTemp).doesNotExist();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(f -> f.contains("damaged"));
        }
        assertThat(store.load(LocalCa.ID, "app.localhost")).get().extracting(CertifiedKey::sha256)
                .isEqualTo(fresh.sha256());
    }

    @Test
    void withoutAMatchingChainTheMismatchedPairIsStillMovedAside() throws Exception {
        CertStore store = new CertStore(data);
        LocalCa ca = LocalCa.open(store);
        store.save(LocalCa.ID, "app.localhost", ca.issue("app.localhost"));
        Path dir = data.resolve("certificates/local/app.localhost");
        AtomicFiles.write(dir.resolve("key.pem"), Pem.privateKey(ca.issue("app.localhost").key())
                .getBytes(StandardCharsets.US_ASCII), true);
        assertThat(store.load(LocalCa.ID, "app.localhost")).isEmpty();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(f -> f.contains("damaged"));
        }
    }
}
