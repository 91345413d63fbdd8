package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostNamesTest {
    @ParameterizedTest
    @ValueSource(strings = {"::", "::1", "1::", "2001:db8::1", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
        "fe80::1:2", "::ffff:192.0.2.1", "1:2:3:4:5:6:1.2.3.4", "ABCD:ef01::"})
    void acceptsIpv6(String s) {
        assertThat(HostNames.isIpv6(s)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ":", ":::", "1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2:3:4:5:6:7:8",
        "12345::", "g::", ":1::", "1::2:", "fe80::1%eth0", "1.2.3.4", "::1.2.3", "1.2.3.4::", "::ffff:1.2.3.4:5"})
    void refusesWhatIsNotIpv6(String s) {
        assertThat(HostNames.isIpv6(s)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "127.0.0.1", "255.255.255.255", "10.0.0.7"})
    void acceptsIpv4(String s) {
        assertThat(HostNames.isIpv4(s)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..2.3", "1.2.3.4.", "1234.1.1.1"})
    void refusesWhatIsNotIpv4(String s) {
        assertThat(HostNames.isIpv4(s)).isFalse();
    }
}
