package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden files: each {@code errors/NAME.yaml} must give exactly the error lines in {@code errors/NAME.expected}.
 * Run with {@code -Dusher.updateGolden=true} to rewrite the expected files from the current output, then read the
 * diff before committing it.
 */
class ConfigLoaderGoldenTest {
    private static final Path DIR = Path.of("src", "test", "resources", "config", "errors");
    private static final boolean UPDATE = Boolean.getBoolean("usher.updateGolden");
    private static final HostEnvironment ENV = new HostEnvironment("alice", "/home/alice");

    static Stream<String> cases() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted()
                    .collect(Collectors.toList()).stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void reportsEveryErrorWithPositionAndPath(String name) throws IOException {
        String yaml = Files.readString(DIR.resolve(name), StandardCharsets.UTF_8);
        Path expectedFile = DIR.resolve(name.substring(0, name.length() - ".yaml".length()) + ".expected");
        String actual = errorLines(yaml, name);
        if (UPDATE) {
            Files.writeString(expectedFile, actual, StandardCharsets.UTF_8);
        }
        assertThat(expectedFile).as("expected output for %s (regenerate with -Dusher.updateGolden=true)", name)
                .exists();
        assertThat(actual).isEqualTo(Files.readString(expectedFile, StandardCharsets.UTF_8));
        assertThat(actual).as("a golden case must fail").isNotEmpty();
    }

    @Test
    void hasEnoughCases() throws IOException {
        assertThat(cases().count()).isGreaterThanOrEqualTo(12);
    }

    @Test
    void errorsComeSortedByLineThenColumn() throws IOException {
        for (String name : cases().toList()) {
            List<ConfigError> errors = errors(Files.readString(DIR.resolve(name), StandardCharsets.UTF_8), name);
            assertThat(errors).as(name).isSortedAccordingTo((a, b) -> a.line() != b.line()
                    ? Integer.compare(a.line(), b.line()) : Integer.compare(a.column(), b.column()));
        }
    }

    private static String errorLines(String yaml, String name) {
        return errors(yaml, name).stream().map(e -> e.format() + "\n").collect(Collectors.joining());
    }

    private static List<ConfigError> errors(String yaml, String name) {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> ConfigLoader.parse(yaml, name, ENV));
        return e == null ? List.of() : e.errors();
    }
}
