package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NameLockTest {
    @TempDir
    Path data;

    @Test
    void secondStoreInTheSameProcessCannotLockAHeldName() throws Exception {
        CertStore first = new CertStore(data);
        CertStore second = new CertStore(data);

        NameLock held = first.tryLock("acme-le", "app.example.com").orElseThrow();
        assertThat(second.tryLock("acme-le", "app.example.com")).isEmpty();
        assertThat(first.tryLock("acme-le", "app.example.com")).isEmpty();
        try (NameLock other = second.tryLock("acme-le", "other.example.com").orElseThrow()) {
            assertThat(other.file()).hasFileName("other.example.com.lock");
        }

        held.close();
        held.close(); // twice is harmless
        try (NameLock again = second.tryLock("acme-le", "app.example.com").orElseThrow()) {
            assertThat(first.tryLock("acme-le", "app.example.com")).isEmpty();
        }
    }

    @Test
    void blockingLockWaitsForTheHolder() throws Exception {
        CertStore store = new CertStore(data);
        NameLock held = store.tryLock("local", "app.test").orElseThrow();
        assertThat(store.lock("local", "app.test", Duration.ofMillis(150))).isEmpty();

        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(200);
                held.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (NameLock got = store.lock("local", "app.test", Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(got.file()).exists();
        }
    }

    @Test
    void anotherProcessHoldingTheLockKeepsThisOneOut() throws Exception {
        Process child = startHolder("acme-le", "app.example.com");
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("LOCKED");
            CertStore store = new CertStore(data);
            assertThat(store.tryLock("acme-le", "app.example.com")).isEmpty();

            child.getOutputStream().close(); // the child lets go and exits
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            Optional<NameLock> mine = store.tryLock("acme-le", "app.example.com");
            assertThat(mine).isPresent();
            // a failed try from another store here must not drop this process's lock (Linux fcntl semantics)
            assertThat(new CertStore(data).tryLock("acme-le", "app.example.com")).isEmpty();

            Process second = startHolder("acme-le", "app.example.com");
            try (BufferedReader out2 = new BufferedReader(
                    new InputStreamReader(second.getInputStream(), StandardCharsets.UTF_8))) {
                assertThat(out2.readLine()).isEqualTo("BUSY");
            }
            assertThat(second.waitFor(30, TimeUnit.SECONDS)).isTrue();
            mine.get().close();
        } finally {
            child.destroyForcibly();
        }
    }

    private Process startHolder(String issuer, String name) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), LockHolder.class.getName(),
                data.toString(), issuer, name).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }
}
