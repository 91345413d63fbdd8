package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SuggestionsTest {
    private static final List<String> TOP = List.of("listen", "data", "timeouts", "limits", "sites");
    private static final List<String> SITE = List.of("to", "max_body", "timeouts");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "tiemouts, timeouts",
        "timeout, timeouts",
        "TIMEOUTS, timeouts",
        "Sites, sites",
        "site, sites",
        "lisen, listen",
        "limts, limits",
        "dta, data",
    })
    void suggestsCloseKeys(String typed, String expected) {
        assertThat(Suggestions.closest(typed, TOP, Map.of())).contains(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"foo", "upstreams", "x", "timeoutsandmore"})
    void staysQuietWhenNothingIsClose(String typed) {
        assertThat(Suggestions.closest(typed, TOP, Map.of())).isEmpty();
    }

    @Test
    void foldsCaseAndSeparators() {
        assertThat(Suggestions.closest("maxBody", SITE, Map.of())).contains("max_body");
        assertThat(Suggestions.closest("max-body", SITE, Map.of())).contains("max_body");
        assertThat(Suggestions.closest("MAXBODY", SITE, Map.of())).contains("max_body");
    }

    @Test
    void shortKeysNeedCloserMatches() {
        assertThat(Suggestions.closest("ot", SITE, Map.of())).contains("to");
        assertThat(Suggestions.closest("tp", SITE, Map.of())).contains("to");
        assertThat(Suggestions.closest("foo", SITE, Map.of())).isEmpty();
    }

    @Test
    void usesAliases() {
        assertThat(Suggestions.closest("Upstream", SITE, Map.of("upstream", "to"))).contains("to");
    }

    @Test
    void countsAnAdjacentSwapAsOneEdit() {
        assertThat(Suggestions.distance("tiemouts", "timeouts")).isEqualTo(1);
        assertThat(Suggestions.distance("", "abc")).isEqualTo(3);
        assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
    }
}
