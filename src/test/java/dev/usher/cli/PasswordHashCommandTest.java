package dev.usher.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

class PasswordHashCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private static InputStream stdin(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private int run(InputStream in, PasswordHashCommand.Prompt prompt, String... args) {
        return PasswordHashCommand.run(args, in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), prompt, 4);
    }

    private String printed() {
        return out.toString(StandardCharsets.UTF_8).strip();
    }

    @Test
    void hashesTheFirstLineOfStandardInputWithCost12() {
        int status = PasswordHashCommand.run(new String[] {"--password-stdin"}, stdin("s3cret pässword\r\nnext\n"),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isZero();
        String hash = printed();
        assertThat(hash).startsWith("$2y$12$").hasSize(60);
        assertThat(OpenBSDBCrypt.checkPassword(hash, "s3cret pässword".toCharArray())).isTrue();
        assertThat(OpenBSDBCrypt.checkPassword(hash, "s3cret pässword\r".toCharArray())).isFalse();
        assertThat(err.size()).isZero();
    }

    @Test
    void acceptsALastLineWithoutNewline() {
        assertThat(run(stdin("pw"), null, "--password-stdin")).isZero();
        assertThat(OpenBSDBCrypt.checkPassword(printed(), "pw".toCharArray())).isTrue();
    }

    @Test
    void refusesAnEmptyPassword() {
        assertThat(run(stdin("\n"), null, "--password-stdin")).isEqualTo(1);
        assertThat(run(stdin(""), null, "--password-stdin")).isEqualTo(1);
        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("empty");
    }

    @Test
    void asksTwiceAtTheTerminal() {
        Deque<String> answers = new ArrayDeque<>(List.of("correct horse", "correct horse"));
        List<String> prompts = new java.util.ArrayList<>();

        int status = run(stdin(""), text -> {
            prompts.add(text);
            return answers.pop().toCharArray();
        });

        assertThat(status).isZero();
        assertThat(prompts).containsExactly("Password: ", "Repeat password: ");
        assertThat(OpenBSDBCrypt.checkPassword(printed(), "correct horse".toCharArray())).isTrue();
    }

    @Test
    void refusesPasswordsThatDoNotMatch() {
        Deque<String> answers = new ArrayDeque<>(List.of("one", "two"));

        assertThat(run(stdin(""), text -> answers.pop().toCharArray())).isEqualTo(1);
        assertThat(out.size()).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("do not match");
    }

    @Test
    void endOfInputAtThePromptIsAnEmptyPassword() {
        assertThat(run(stdin(""), text -> null)).isEqualTo(1);
    }

    @Test
    void misuseExitsWith2() {
        assertThat(run(stdin("pw\n"), null, "--password", "pw")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage: usher hash-password");
        assertThat(run(stdin("pw\n"), null)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--password-stdin");
        assertThat(out.size()).isZero();
    }

    @Test
    void helpGoesToStandardOutput() {
        assertThat(run(stdin(""), null, "--help")).isZero();
        assertThat(printed()).startsWith("usage: usher hash-password");
    }
}
