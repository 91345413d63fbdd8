package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CidrTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "10.0.0.0/8 | 10.0.0.0/8",
        "10.1.2.3/8 | 10.0.0.0/8",
        "192.168.1.7 | 192.168.1.7/32",
        "192.168.1.7/32 | 192.168.1.7/32",
        "172.16.255.255/12 | 172.16.0.0/12",
        "10.0.0.1/0 | 0.0.0.0/0",
        "' 10.0.0.0/8 ' | 10.0.0.0/8",
        "2001:db8::/32 | 2001:db8::/32",
        "2001:DB8:1:2:3:4:5:6/32 | 2001:db8::/32",
        "2001:db8::1 | 2001:db8::1/128",
        "::1 | ::1/128",
        "::/0 | ::/0",
        "fe80::1:2/64 | fe80::/64",
        "2001:db8:0:1:0:0:0:1/128 | 2001:db8:0:1::1/128",
        "2001:db8:0:0:1:0:0:1 | 2001:db8::1:0:0:1/128",
        "::ffff:10.0.0.0/104 | 10.0.0.0/8",
        "::ffff:192.0.2.1 | 192.0.2.1/32",
    })
    void parsesAndClearsHostBits(String text, String shown) {
        assertThat(Cidr.parse(text)).hasToString(shown);
    }

    @Test
    void parsedNetworksEqualWhenTheyNameTheSameRange() {
        assertThat(Cidr.parse("10.9.9.9/8")).isEqualTo(Cidr.parse("10.0.0.0/8"));
        assertThat(Cidr.parse("192.0.2.1")).isEqualTo(Cidr.parse("192.0.2.1/32"));
    }

    @Test
    void containsAddressesInsideTheRangeOnly() throws UnknownHostException {
        Cidr v4 = Cidr.parse("10.0.0.0/8");
        assertThat(v4.contains(ip("10.0.0.0"))).isTrue();
        assertThat(v4.contains(ip("10.255.255.255"))).isTrue();
        assertThat(v4.contains(ip("11.0.0.0"))).isFalse();
        assertThat(v4.contains(ip("9.255.255.255"))).isFalse();

        Cidr odd = Cidr.parse("172.16.0.0/12");
        assertThat(odd.contains(ip("172.31.255.255"))).isTrue();
        assertThat(odd.contains(ip("172.32.0.0"))).isFalse();
        assertThat(odd.contains(ip("172.15.255.255"))).isFalse();

        Cidr host = Cidr.parse("192.168.1.7");
        assertThat(host.contains(ip("192.168.1.7"))).isTrue();
        assertThat(host.contains(ip("192.168.1.8"))).isFalse();

        Cidr v6 = Cidr.parse("2001:db8::/32");
        assertThat(v6.contains(ip("2001:db8::1"))).isTrue();
        assertThat(v6.contains(ip("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"))).isTrue();
        assertThat(v6.contains(ip("2001:db9::"))).isFalse();

        Cidr v6host = Cidr.parse("::1");
        assertThat(v6host.contains(ip("::1"))).isTrue();
        assertThat(v6host.contains(ip("::2"))).isFalse();
    }

    @Test
    void zeroPrefixMatchesEveryAddressOfItsFamilyOnly() throws UnknownHostException {
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("203.0.113.9"))).isTrue();
        assertThat(Cidr.parse("0.0.0.0/0").contains(ip("2001:db8::1"))).isFalse();
        assertThat(Cidr.parse("::/0").contains(ip("2001:db8::1"))).isTrue();
        assertThat(Cidr.parse("::/0").contains(ip("203.0.113.9"))).isFalse();
    }

    @Test
    void ipv4AndIpv6NeverMatchEachOther() throws UnknownHostException {
        assertThat(Cidr.parse("10.0.0.0/8").contains(ip("::a00:1"))).isFalse();
        assertThat(Cidr.parse("::/96").contains(ip("10.0.0.1"))).isFalse();
        // An IPv4-mapped range is the IPv4 range: Java presents such clients as IPv4 addresses.
        assertThat(Cidr.parse("::ffff:10.0.0.0/104").contains(ip("10.1.2.3"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "example.com", "localhost", "10.0.0", "10.0.0.256", "010.0.0.1",
        "/8", "1.2.3.4 /8", "fe80::1%eth0", "2001:db8:::1", "[::1]", "10.0.0.0-10.0.0.9"})
    void refusesWhatIsNotAnAddressOrRange(String text) {
        assertThatThrownBy(() -> Cidr.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(such as 10.0.0.0/8 or 2001:db8::/32)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10.0.0.0/33 | the prefix length in \"10.0.0.0/33\" must be a number from 0 to 32",
        "10.0.0.0/-1 | the prefix length in \"10.0.0.0/-1\" must be a number from 0 to 32",
        "10.0.0.0/+8 | the prefix length in \"10.0.0.0/+8\" must be a number from 0 to 32",
        "10.0.0.0/x | the prefix length in \"10.0.0.0/x\" must be a number from 0 to 32",
        "10.0.0.0/ | the prefix length in \"10.0.0.0/\" must be a number from 0 to 32",
        "10.0.0.0/8/8 | the prefix length in \"10.0.0.0/8/8\" must be a number from 0 to 32",
        "10.0.0.0/ 8 | the prefix length in \"10.0.0.0/ 8\" must be a number from 0 to 32",
        "::/129 | the prefix length in \"::/129\" must be a number from 0 to 128",
        "::ffff:10.0.0.0/64 | \"::ffff:10.0.0.0/64\" is an IPv4-mapped address; its prefix length must be 96 to 128, "
                + "or write the IPv4 network itself",
    })
    void refusesBadPrefixLengths(String text, String message) {
        assertThatThrownBy(() -> Cidr.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    private static InetAddress ip(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal);
    }
}
