package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StoreNamesTest {
    @ParameterizedTest
    @CsvSource({"example.com, example.com", "App.Example.COM, app.example.com",
        "*.example.com, wildcard_.example.com", "::1, ipv6_--1", "2001:DB8::1, ipv6_2001-db8--1",
        "127.0.0.1, 127.0.0.1", "a-b.test, a-b.test"})
    void encodesReadablyAndDecodesBack(String name, String fileName) {
        assertThat(StoreNames.encode(name)).isEqualTo(fileName);
        assertThat(StoreNames.decode(fileName)).isEqualTo(name.toLowerCase(java.util.Locale.ROOT));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", ".hidden", "a/b", "a\\b", "../etc", "a..b", "a\0b", "*.", "*..x", "a*b",
        "wildcard_.x", "x_y", "fe80::1%eth0", "a b"})
    void refusesNamesThatCouldEscapeOrCollide(String name) {
        assertThatThrownBy(() -> StoreNames.encode(name)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".x", "_x", "a/b", "..", "Up"})
    void refusesUnsafeIssuerIds(String id) {
        assertThatThrownBy(() -> StoreNames.checkIssuerId(id)).isInstanceOf(IllegalArgumentException.class);
    }
}
