package dev.usher.dns;

import dev.usher.config.DnsSettings;
import dev.usher.testing.Bind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The exec provider with real shell scripts: one that calls {@code nsupdate} against real BIND, ones that fail. */
class ExecProviderTest {
    static Bind bind;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() {
        bind = Bind.builder().zone("usher.example").start();
    }

    @AfterAll
    static void stop() {
        if (bind != null) {
            bind.close();
        }
    }

    static Path script(String name, String text) throws Exception {
        Path file = Files.writeString(dir.resolve(name), text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }

    static ChallengeRecord record(String value) {
        return new ChallengeRecord("_acme-challenge.hook.usher.example", "usher.example", value);
    }

    @Test
    void aHookScriptCallingNsupdateAddsAndRemovesTheValue() throws Exception {
        ExecProvider provider = new ExecProvider(new DnsSettings.Exec(List.of(bind.writeNsupdateHook(
                dir.resolve("nsupdate-hook.sh"), null).toString()),
                Duration.ofSeconds(20)));
        ChallengeRecord record = record("h".repeat(43));
        provider.present(record);
        assertThat(bind.dig("127.0.0.1", record.name(), "TXT")).containsExactly("\"" + record.value() + "\"");
        provider.cleanUp(record, "");
        assertThat(bind.dig("127.0.0.1", record.name(), "TXT")).isEmpty();
    }

    @Test
    void aFailingHookIsReportedWithItsExitStatusAndWhatItPrinted() throws Exception {
        Path failing = script("failing.sh", "#!/bin/sh\necho \"zone example.org: API says: quota exceeded\" >&2\n"
                + "exit 3\n");
        ExecProvider provider = new ExecProvider(new DnsSettings.Exec(List.of(failing.toString(), "--account", "7"),
                Duration.ofSeconds(20)));
        assertThatThrownBy(() -> provider.present(record("f".repeat(43)))).isInstanceOf(DnsException.class)
                .hasMessage("exec: " + failing + " present _acme-challenge.hook.usher.example. exited with 3: zone "
                        + "example.org: API says: quota exceeded");
    }

    @Test
    void aHookThatHangsIsStoppedAtItsTimeout() throws Exception {
        Path hanging = script("hanging.sh", "#!/bin/sh\necho starting\nsleep 30\n");
        ExecProvider provider = new ExecProvider(new DnsSettings.Exec(List.of(hanging.toString()),
                Duration.ofMillis(500)));
        long start = System.nanoTime();
        assertThatThrownBy(() -> provider.present(record("t".repeat(43)))).isInstanceOf(DnsException.class)
                .hasMessageContaining("did not finish within 500 ms and was stopped: starting");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }
}
