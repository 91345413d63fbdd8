package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {
    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource(delimiter = '=', value = {
        "500ms = 500",
        "10s = 10000",
        "1m = 60000",
        "2h = 7200000",
        "1m30s = 90000",
        "1h2m3s4ms = 3723004",
        "1h30s = 3630000",
        "30 = 30000",
        "1.5s = 1500",
        "1.5 = 1500",
        "0.5h = 1800000",
        "' 10 s ' = 10000",
        "1m 30s = 90000",
        "1ms = 1",
        "007s = 7000",
    })
    void parsesNumbersWithUnits(String text, long millis) throws BadValue {
        assertThat(Durations.parse(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"10x", "", "abc", "s", "1.s", ".5s", "1e3s", "+5s", "10s!", "1,5s", "1h-5m"})
    void refusesWhatIsNotADuration(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).isInstanceOf(BadValue.class)
                .hasMessageStartingWith("invalid duration \"" + text + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10x", "abc", "", "1d", "3sec", "2min", "1us", "1e3s"})
    void invalidMessageShowsTheAcceptedForms(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .hasMessage("invalid duration \"" + text + "\"; use a number with a unit: 500ms, 10s, 1m, 2h");
    }

    @ParameterizedTest
    @ValueSource(strings = {"5M", "10S", "1MS", "2H", "1m30S"})
    void saysUnitsAreLowerCase(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .hasMessage("invalid duration \"" + text + "\"; units are lower-case: ms, s, m, h");
    }

    @ParameterizedTest
    @ValueSource(strings = {"30s1m", "1s1s", "500ms1s", "1m1h"})
    void wantsLargerUnitsFirstAndEachOnce(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).hasMessageContaining("put larger units first");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0s", "0ms", "0h0m0s", "-5s", "-1", "0.0000000001s"})
    void mustBeGreaterThanZero(String text) {
        assertThatThrownBy(() -> Durations.parse(text))
                .hasMessage("a duration must be greater than zero; got \"" + text + "\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"9999999999999h", "99999999999999999999"})
    void refusesWhatDoesNotFit(String text) {
        assertThatThrownBy(() -> Durations.parse(text)).hasMessage("duration \"" + text + "\" is too large");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2562047h", "9223372036s"})
    void acceptsTheLargestThatFits(String text) throws BadValue {
        assertThat(Durations.parse(text)).isPositive();
    }
}
