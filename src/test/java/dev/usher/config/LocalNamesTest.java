package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LocalNamesTest {
    @ParameterizedTest
    @ValueSource(strings = {"localhost", "LOCALHOST", "app.localhost", "*.localhost", "a.b.localhost", "127.0.0.1",
        "10.1.2.3", "::1", "2001:db8::7", "app.test", "*.app.test", "nas.internal", "printer.lan", "pi.home.arpa",
        "App.Test.", "x.home.arpa"})
    void coversLocalNames(String name) {
        assertThat(LocalNames.isLocal(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"example.com", "test", "internal", "lan", "home.arpa", "*.test", "*.lan", "localhost.com",
        "mytest", "app.testing", "notlan", "arpa", "", ".test", "1.2.3", "example.com.test.org"})
    void leavesOtherNamesToPublicCas(String name) {
        assertThat(LocalNames.isLocal(name)).isFalse();
    }
}
