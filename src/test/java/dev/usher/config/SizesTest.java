package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {
    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '=', value = {
        "0 = 0",
        "1048576 = 1048576",
        "100B = 100",
        "100b = 100",
        "1KB = 1000",
        "1kb = 1000",
        "1Kb = 1000",
        "10MB = 10000000",
        "2GB = 2000000000",
        "1KiB = 1024",
        "1kib = 1024",
        "1KIB = 1024",
        "16KiB = 16384",
        "10MiB = 10485760",
        "1GiB = 1073741824",
        "1k = 1024",
        "1K = 1024",
        "1m = 1048576",
        "1M = 1048576",
        "1g = 1073741824",
        "1G = 1073741824",
        "1.5KiB = 1536",
        "1.5KB = 1500",
        "0.3KiB = 307",
        "'10 MiB' = 10485760",
        "' 8k ' = 8192",
        "8589934591GiB = 9223372035781033984",
        "9223372036854775807 = 9223372036854775807",
    })
    void parsesBytesAndUnits(String text, long bytes) throws BadValue {
        assertThat(Sizes.parse(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "MiB", "1.5.5MB", "+5", "10 MiB!", "1e3", "1_000", "0x10"})
    void refusesWhatIsNotASize(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).isInstanceOf(BadValue.class)
                .hasMessage("invalid size \"" + text + "\"; use a number of bytes or a number with a unit: "
                        + "512KiB, 10MB, 1GiB");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10XB", "1TB", "5 megabytes", "1kbit", "2Gi"})
    void namesAnUnknownUnit(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).hasMessageStartingWith("invalid size \"" + text
                + "\": unknown unit").hasMessageEndingWith("use B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB "
                + "(powers of 1024)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "-1KiB", "-0"})
    void refusesNegativeSizes(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).hasMessage("a size cannot be negative; got \"" + text + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"8589934592GiB", "9223372036854775808", "99999999999999999999"})
    void refusesWhatDoesNotFit(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).hasMessage("size \"" + text + "\" is too large");
    }
}
