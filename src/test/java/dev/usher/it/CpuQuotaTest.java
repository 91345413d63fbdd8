package dev.usher.it;

import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With one CPU allowed, Usher runs one event loop thread. The JVM derives its CPU count from cgroup quotas and
 * affinity; {@code -XX:ActiveProcessorCount=1} stands in for a 1-CPU container here, and {@code taskset} pins the
 * process to one core the way a VPS or {@code docker --cpus=1} does.
 */
class CpuQuotaTest {
    @TempDir
    Path dir;

    @Test
    void oneAllowedCpuMeansOneEventLoopThread() throws Exception {
        assertThat(startAndReadThreads(List.of("-XX:ActiveProcessorCount=1"), false)).isEqualTo(1);
    }

    @Test
    void pinnedToOneCoreMeansOneEventLoopThread() throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/taskset"))) {
            // util-linux is part of every Debian install; without it this check cannot run.
            throw new AssertionError("/usr/bin/taskset is missing");
        }
        assertThat(startAndReadThreads(List.of(), true)).isEqualTo(1);
    }

    private int startAndReadThreads(List<String> jvmFlags, boolean pin) throws Exception {
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "b")) {
            Path config = dir.resolve("usher.yaml");
            Files.writeString(config, "listen: {http: \"127.0.0.1:0\", https: off}\nadmin: off\nsites:\n  a.example.com: 127.0.0.1:"
                    + backend.port() + "\n");
            String javaBin = ProcessHandle.current().info().command().orElse("java");
            List<String> command = new ArrayList<>();
            if (pin) {
                command.addAll(List.of("/usr/bin/taskset", "-c", "0"));
            }
            command.add(javaBin);
            command.addAll(jvmFlags);
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.usher.Main", "run",
                    "--config", config.toString()));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Matcher m = Pattern.compile("with (\\d+) event loop thread").matcher(line);
                    if (m.find()) {
                        return Integer.parseInt(m.group(1));
                    }
                }
                throw new AssertionError("usher exited without its start-up line");
            } finally {
                p.destroy();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
