package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ListenAddressesTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        ":80 | '' | 80",
        "8080 | '' | 8080",
        "0 | '' | 0",
        ":0 | '' | 0",
        "127.0.0.1:8080 | 127.0.0.1 | 8080",
        "0.0.0.0:80 | 0.0.0.0 | 80",
        "localhost:8080 | 127.0.0.1 | 8080",
        "LOCALHOST:8080 | 127.0.0.1 | 8080",
        "[::1]:8080 | ::1 | 8080",
        "[::]:443 | :: | 443",
    })
    void readsAddresses(String raw, String host, int port) throws BadValue {
        ListenAddress address = ListenAddresses.parse(raw);
        assertThat(address).isEqualTo(new ListenAddress(host, port));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "example.com:80 | the listen host \"example.com\" must be an IP address, or left out for every interface, "
                + "as in \":80\"",
        "*:80 | to listen on every interface leave the host out, as in \":80\"",
        ":99999 | port 99999 is out of range; use a number from 0 to 65535",
        "99999 | port 99999 is out of range; use a number from 0 to 65535",
        ":http | invalid port \"http\"; use a number from 0 to 65535",
        "127.0.0.1 | the port is missing; write e.g. \"127.0.0.1:80\"",
        "[::1] | the port is missing; write e.g. \"[::1]:80\"",
        "[::1 | \"[::1\" is not a valid IPv6 address; write e.g. \"[::1]:8080\"",
        "::1:80 | write an IPv6 address in brackets, e.g. \"[::1]:8080\"",
        "http://:80 | a listen address has no scheme; write \":80\", \"8080\" or \"127.0.0.1:8080\"",
        "foo | invalid listen address \"foo\"; write \":80\", \"8080\" or \"127.0.0.1:8080\"",
        "'' | the listen address is empty; write \":80\", \"8080\" or \"127.0.0.1:8080\"",
    })
    void explainsWhatIsWrong(String raw, String message) {
        assertThatThrownBy(() -> ListenAddresses.parse(raw)).isInstanceOf(BadValue.class).hasMessage(message);
    }
}
