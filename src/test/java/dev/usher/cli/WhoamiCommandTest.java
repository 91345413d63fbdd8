package dev.usher.cli;

import dev.usher.whoami.Whoami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WhoamiCommandTest {

    @Test
    void defaultsToLoopback9000() {
        assertThat(WhoamiCommand.parse(new String[0])).isEqualTo(new WhoamiCommand.Options("127.0.0.1", 9000, null, false));
    }

    @Test
    void acceptsTheListenForms() {
        assertThat(WhoamiCommand.parse(new String[] {"--listen", ":9001"}).host()).isEmpty();
        assertThat(WhoamiCommand.parse(new String[] {"--listen", "9002"}))
                .isEqualTo(new WhoamiCommand.Options("127.0.0.1", 9002, null, false));
        assertThat(WhoamiCommand.parse(new String[] {"--listen=10.0.0.1:9003", "--name", "b1"}))
                .isEqualTo(new WhoamiCommand.Options("10.0.0.1", 9003, "b1", false));
        assertThat(WhoamiCommand.parse(new String[] {"--listen", "[::1]:9004"}).host()).isEqualTo("::1");
    }

    @Test
    void rejectsBadArgumentsWithExitCode2() {
        assertThat(run("--listen", "nowhere")).isEqualTo(2);
        assertThat(run("--listen", "1:2:3")).isEqualTo(2);
        assertThat(run("--listen", ":70000")).isEqualTo(2);
        assertThat(run("--name")).isEqualTo(2);
        assertThat(run("--bogus")).isEqualTo(2);
        assertThatThrownBy(() -> WhoamiCommand.parse(new String[] {"--frobnicate"})).hasMessageContaining("--frobnicate");
    }

    @Test
    void printsUsageForHelp() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = WhoamiCommand.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--listen ADDR");
    }

    @Test
    void failsWithExitCode1WhenItCannotListen() {
        try (Whoami taken = Whoami.start("127.0.0.1", 0, "taken")) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = WhoamiCommand.run(new String[] {"--listen", "127.0.0.1:" + taken.port()},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

            assertThat(code).isEqualTo(1);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot listen on 127.0.0.1:" + taken.port());
        }
    }

    private static int run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = WhoamiCommand.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("usher whoami: ");
        return code;
    }
}
