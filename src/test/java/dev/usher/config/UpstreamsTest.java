package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UpstreamsTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "app1:80 | app1 | 80",
        "app | app | 80",
        "App.Internal | app.internal | 80",
        "web_1:3000 | web_1 | 3000",
        "10.0.0.7:8080 | 10.0.0.7 | 8080",
        "http://app:8080 | app | 8080",
        "HTTP://app | app | 80",
        "http://app:8080/ | app | 8080",
        "[::1]:3000 | ::1 | 3000",
        "[::1] | ::1 | 80",
        "http://[2001:db8::1]:81 | 2001:db8::1 | 81",
        "[::ffff:192.0.2.1]:80 | ::ffff:192.0.2.1 | 80",
        "localhost:65535 | localhost | 65535",
        "app.:1 | app | 1",
    })
    void readsAddresses(String raw, String host, int port) throws BadValue {
        assertThat(Upstreams.parse(raw)).isEqualTo(new UpstreamAddress(host, port));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "https://10.0.0.5:8006 | 10.0.0.5 | 8006 | HTTPS",
        "HTTPS://portainer | portainer | 443 | HTTPS",
        "https://[::1] | ::1 | 443 | HTTPS",
        "h2c://grpc-svc:50051 | grpc-svc | 50051 | H2C",
        "h2c://grpc | grpc | 80 | H2C",
    })
    void readsSchemes(String raw, String host, int port, UpstreamScheme scheme) throws BadValue {
        UpstreamAddress address = Upstreams.parse(raw);
        assertThat(address).isEqualTo(new UpstreamAddress(host, port, scheme, null));
        assertThat(address.tls()).isEqualTo(scheme == UpstreamScheme.HTTPS ? UpstreamTls.DEFAULT : null);
        assertThat(address.toString()).isEqualTo(scheme.prefix() + address.authority());
        assertThat(address.mayUseH2()).isEqualTo(scheme == UpstreamScheme.H2C);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "app:0 | port 0 is out of range; use a number from 1 to 65535",
        "app:65536 | port 65536 is out of range; use a number from 1 to 65535",
        "app:99999999999 | port 99999999999 is out of range; use a number from 1 to 65535",
        "app:http | invalid port \"http\"; use a number from 1 to 65535",
        "app: | the port is missing after ':'",
        "grpc://app:8443 | write h2c:// for cleartext HTTP/2 (gRPC without TLS), or https:// with upstream_tls: "
                + "{alpn: [h2]} for HTTP/2 over TLS",
        "ws://app:80 | unsupported scheme \"ws://\"; write http:// (websockets need no scheme of their own)",
        "ftp://app:21 | unsupported scheme \"ftp://\"; use http://, https://, h2c:// or host:port",
        "app:80/api | an upstream cannot have a path (\"/api\"); requests are forwarded with their own path (to put "
                + "one in front, use paths: with add_prefix:)",
        "'app:80, app:81' | one address per upstream; for several, write a list: [a:80, b:80]",
        "::1 | write an IPv6 address in brackets, e.g. [::1]:8080",
        "[::1 | missing ']' after the IPv6 address",
        "[::1]x | \"[::1]x\" is not a valid IPv6 address; write e.g. [::1]:8080",
        ":80 | the host is missing; write host:port, e.g. app:80 or 127.0.0.1:3000",
        "http:// | the host is missing; write host:port, e.g. app:80 or 127.0.0.1:3000",
        "'' | the upstream address is empty; write host:port, e.g. app:80",
        "*.app:80 | an upstream cannot be a wildcard; name one backend host",
        "'3000' | \"3000\" is a port alone; write host:port, e.g. 127.0.0.1:3000",
        "10.0.0.300 | \"10.0.0.300\" is not a valid IPv4 address",
        "user@app:80 | an upstream cannot contain user info (\"user@\")",
        "'app :80' | an upstream address cannot contain spaces",
        "app!:80 | \"app!\" contains \"!\"; a host name may have only letters, digits, '-', '_' and '.'",
    })
    void explainsWhatIsWrong(String raw, String message) {
        assertThatThrownBy(() -> Upstreams.parse(raw)).isInstanceOf(BadValue.class).hasMessage(message);
    }
}
