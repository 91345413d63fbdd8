package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.config.SiteNames.SiteName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SiteNamesTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "app.example.com, app.example.com, false",
        "App.Example.COM, app.example.com, false",
        "app.example.com., app.example.com, false",
        "http://app.example.com, app.example.com, true",
        "HTTP://app.example.com, app.example.com, true",
        "https://app.example.com, app.example.com, false",
        "HTTPS://app.example.com/, app.example.com, false",
        "*.dev.example.com, *.dev.example.com, false",
        "http://*.example.com, *.example.com, true",
        "localhost, localhost, false",
        "127.0.0.1, 127.0.0.1, false",
        "[::1], ::1, false",
        "[2001:DB8::1], 2001:db8::1, false",
        "xn--bcher-kva.example, xn--bcher-kva.example, false",
        "a-b.c-d.example, a-b.c-d.example, false",
    })
    void normalisesValidNames(String raw, String name, boolean plain) throws BadValue {
        assertThat(SiteNames.parse(raw)).isEqualTo(new SiteName(name, plain));
    }

    @Test
    void acceptsLabelsAndNamesAtTheirLimits() throws BadValue {
        String label = "a".repeat(63);
        String name = String.join(".", label, label, label, "b".repeat(61));
        assertThat(name).hasSize(253);
        assertThat(SiteNames.parse(name).name()).isEqualTo(name);
        assertThatThrownBy(() -> SiteNames.parse(name + "b")).hasMessageContaining("at most 253");
        assertThatThrownBy(() -> SiteNames.parse(label + "a.com")).hasMessageContaining("at most 63");
    }

    @ParameterizedTest
    @ValueSource(strings = {"*.com", "*", "*.", "*.lan"})
    void wildcardMustCoverASubdomain(String raw) {
        assertThatThrownBy(() -> SiteNames.parse(raw)).hasMessage(SiteNames.WILDCARD_HINT);
    }

    @org.junit.jupiter.api.Test
    void everyNameUnderLocalhostIsAllowedAsAWildcard() throws Exception {
        assertThat(SiteNames.parse("*.localhost").name()).isEqualTo("*.localhost");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.*.example.com", "*example.com", "**.x.com", "app.*", "*.*.example.com"})
    void starOnlyAsTheWholeFirstLabel(String raw) {
        assertThatThrownBy(() -> SiteNames.parse(raw))
                .hasMessage("a '*' may only stand for the whole first label, as in *.example.com");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "app.example.com:8080 | a site name cannot include a port (\":8080\"); ports belong in listen:",
        "[::1]:8443 | a site name cannot include a port (\":8443\"); ports belong in listen:",
        "example.com/foo | a site name cannot contain a path (\"/foo\"); a site is a host name, and its paths go "
                + "under paths: in its long form, as in example.com: {to: app:80, paths: {/foo/: api:8080}}",
        "example.com?x=1 | a site name cannot contain a query or fragment (\"?x=1\"); a site is a host name",
        "ftp://example.com | unsupported scheme \"ftp://\"; write http:// for a plain-HTTP site, or no scheme "
                + "(or https://) for HTTPS",
        "::1 | write an IPv6 address in brackets, e.g. [::1]",
        "[::1 | missing ']' after the IPv6 address",
        "[::g] | \"[::g]\" is not a valid IPv6 address",
        "999.1.1.1 | \"999.1.1.1\" is not a valid IPv4 address",
        "1.2.3 | \"1.2.3\" is not a valid IPv4 address",
        "8080 | \"8080\" is a number, not a host name; write a name such as app.example.com (ports belong in "
                + "listen:)",
        "-app.example.com | the label \"-app\" starts or ends with '-', which is not allowed",
        "under_score.example.com | \"under_score.example.com\" contains \"_\"; a host name may have only letters, "
                + "digits, '-' and '.'",
        "a..b.com | \"a..b.com\" has an empty label (two dots in a row, or a leading dot)",
        "bücher.example | \"bücher.example\" has non-ASCII letters; write it in its ASCII form, "
                + "\"xn--bcher-kva.example\"",
        "'a.com, b.com' | a site has one name; give each name its own entry under sites:",
        "'' | a site name cannot be empty",
        "http:// | the host name is empty",
        "*.10.0.0.1 | a wildcard needs a DNS name after \"*.\", not an IP address",
    })
    void explainsWhatIsWrong(String raw, String message) {
        assertThatThrownBy(() -> SiteNames.parse(raw)).isInstanceOf(BadValue.class).hasMessage(message);
    }
}
