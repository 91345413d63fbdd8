package dev.usher.rules;

import static dev.usher.rules.Sites.cidrs;
import static dev.usher.rules.Sites.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.util.List;

class ClientAddressesTest {
    private static final InetAddress PROXY = ip("10.0.0.2");
    private static final InetAddress STRANGER = ip("198.51.100.50");

    private final ClientAddresses behindProxies = new ClientAddresses(cidrs("10.0.0.0/8", "2001:db8:ff::/48"));

    private static HttpHeaders headers(String... nameValue) {
        HttpHeaders headers = new DefaultHttpHeaders();
        for (int i = 0; i < nameValue.length; i += 2) {
            headers.add(nameValue[i], nameValue[i + 1]);
        }
        return headers;
    }

    @Test
    void withoutTrustedProxiesTheClientIsAlwaysThePeer() {
        ClientAddresses none = new ClientAddresses(List.of());
        HttpHeaders headers = headers("x-forwarded-for", "203.0.113.9", "cf-connecting-ip", "203.0.113.8");

        assertThat(none.resolve(PROXY, headers)).isSameAs(PROXY);
    }

    @Test
    void ignoresForwardingHeadersFromAnUntrustedPeer() {
        HttpHeaders spoofed = headers("x-forwarded-for", "203.0.113.9", "cf-connecting-ip", "203.0.113.8");

        assertThat(behindProxies.resolve(STRANGER, spoofed)).isSameAs(STRANGER);
    }

    @Test
    void takesTheRightMostForwardedEntryThatIsNotATrustedProxy() {
        HttpHeaders headers = headers("x-forwarded-for", "203.0.113.9, 198.51.100.7, 10.0.0.3");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("198.51.100.7"));
    }

    @Test
    void readsSeveralForwardedForHeadersAsOneList() {
        HttpHeaders headers = headers("x-forwarded-for", "203.0.113.9", "x-forwarded-for", "10.1.1.1");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("203.0.113.9"));
    }

    @Test
    void takesTheLeftMostWhenEveryEntryIsTrusted() {
        HttpHeaders headers = headers("x-forwarded-for", "10.9.9.9, 10.0.0.3");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("10.9.9.9"));
    }

    @Test
    void keepsThePeerWhenThereIsNoUsableEntry() {
        assertThat(behindProxies.resolve(PROXY, headers())).isSameAs(PROXY);
        assertThat(behindProxies.resolve(PROXY, headers("x-forwarded-for", "unknown, ,example.com")))
                .isSameAs(PROXY);
    }

    @Test
    void skipsGarbageEntries() {
        HttpHeaders headers = headers("x-forwarded-for", "203.0.113.5:8080, unknown, _hidden, 300.1.1.1,");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("203.0.113.5"));
    }

    @Test
    void takesCloudflareConnectingIpFromATrustedPeerThatSendsNoForwardedFor() {
        HttpHeaders headers = headers("cf-connecting-ip", "2001:db8::77");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("2001:db8::77"));
    }

    @Test
    void forwardedForDecidesWhenBothArePresent() {
        HttpHeaders headers = headers("cf-connecting-ip", "2001:db8::77", "x-forwarded-for", "203.0.113.9");

        assertThat(behindProxies.resolve(PROXY, headers)).isEqualTo(ip("203.0.113.9"));
    }

    @Test
    void keepsThePeerWhenTheCloudflareHeaderIsGarbage() {
        HttpHeaders headers = headers("cf-connecting-ip", "nope");

        assertThat(behindProxies.resolve(PROXY, headers)).isSameAs(PROXY);
    }

    @Test
    void handlesIpv6PeersAndEntries() {
        InetAddress v6Proxy = ip("2001:db8:ff::1");
        HttpHeaders headers = headers("x-forwarded-for", "[2001:db8::1]:443, 2001:db8:ff::2");

        assertThat(behindProxies.resolve(v6Proxy, headers)).isEqualTo(ip("2001:db8::1"));
        assertThat(behindProxies.resolve(ip("2001:db8:fe::1"), headers)).isEqualTo(ip("2001:db8:fe::1"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "203.0.113.7|203.0.113.7",
        "' 203.0.113.7 '|203.0.113.7",
        "203.0.113.7:5678|203.0.113.7",
        "\"203.0.113.7\"|203.0.113.7",
        "2001:db8::1|2001:db8::1",
        "[2001:db8::1]|2001:db8::1",
        "[2001:db8::1]:443|2001:db8::1",
        "::ffff:192.0.2.1|192.0.2.1",
    })
    void readsAddressLiterals(String text, String expected) {
        assertThat(IpLiteral.parse(text, 0, text.length())).isEqualTo(ip(expected));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "unknown", "example.com", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4:",
        "1.2.3.4:port", "1.2.3.4:1234567", "[1.2.3.4]", "[2001:db8::1", "[2001:db8::1]x", "fe80::1%eth0",
        "2001:db8::1:", ":::", "[]", "\"", "1.2.3.4, 5.6.7.8"})
    void refusesWhatIsNotAnAddress(String text) {
        assertThat(IpLiteral.parse(text, 0, text.length())).isNull();
    }
}
