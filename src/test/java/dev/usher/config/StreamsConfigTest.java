package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code streams:}, passthrough sites and the PROXY protocol settings, read from YAML with their error messages. */
class StreamsConfigTest {
    private static final HostEnvironment ENV = new HostEnvironment("alice", "/home/alice");

    @Test
    void readsShortAndLongStreams() throws ConfigException {
        UsherConfig config = parse("""
                streams:
                  ":2222": gitea:22
                  ":27015/udp": [game1:27015, game2:27015]
                  "127.0.0.1:5432":
                    to: [db1:5432, db2:5432]
                    policy: first
                    health: {interval: 5s}
                    allow: 10.0.0.0/8
                    max_connections: 50
                    timeouts: {connect: 2s, idle: 1h}
                    proxy_protocol: v2
                    access_log: true
                  ":853":
                    sni:
                      dot.example.com: unbound:853
                      "*.dns.example.com": {to: [a:853, b:853], proxy_protocol: v1}
                """);
        assertThat(config.streams()).hasSize(4);
        StreamSetting ssh = config.streams().get(0);
        assertThat(ssh.name()).isEqualTo(":2222");
        assertThat(ssh.listen()).isEqualTo(new ListenAddress("", 2222));
        assertThat(ssh.protocol()).isEqualTo(StreamSetting.Protocol.TCP);
        assertThat(ssh.target().upstreams()).containsExactly(new UpstreamAddress("gitea", 22));
        assertThat(ssh.idleTimeout()).isEqualTo(StreamSetting.DEFAULT_TCP_IDLE);
        assertThat(ssh.line()).isEqualTo(2);

        StreamSetting game = config.streams().get(1);
        assertThat(game.protocol()).isEqualTo(StreamSetting.Protocol.UDP);
        assertThat(game.target().upstreams()).hasSize(2);
        assertThat(game.idleTimeout()).isEqualTo(StreamSetting.DEFAULT_UDP_IDLE);

        StreamSetting db = config.streams().get(2);
        assertThat(db.listen()).isEqualTo(new ListenAddress("127.0.0.1", 5432));
        assertThat(db.target().balancing().policy()).isEqualTo(Balancing.Policy.FIRST);
        assertThat(db.target().balancing().health()).isEqualTo(
                new Balancing.HealthCheck(null, Duration.ofSeconds(5), Duration.ofSeconds(2)));
        assertThat(db.target().proxyProtocol()).isEqualTo(ProxyProtocol.V2);
        assertThat(db.allow()).hasSize(1);
        assertThat(db.maxConnections()).isEqualTo(50);
        assertThat(db.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(db.idleTimeout()).isEqualTo(Duration.ofHours(1));
        assertThat(db.accessLog()).isTrue();
        assertThat(config.anyAccessLog()).isTrue();

        StreamSetting dot = config.streams().get(3);
        assertThat(dot.target()).isNull();
        assertThat(dot.sni()).containsOnlyKeys("dot.example.com", "*.dns.example.com");
        assertThat(dot.sni().get("*.dns.example.com").proxyProtocol()).isEqualTo(ProxyProtocol.V1);
        assertThat(dot.sni().get("dot.example.com").proxyProtocol()).isEqualTo(ProxyProtocol.OFF);
    }

    @Test
    void explainsStreamMistakes() {
        assertErrors("""
                streams:
                  ":2222": gitea
                  ":2223": "http://gitea:22"
                  ":2224/sctp": a:1
                  ":2225": {upstream: a:1}
                  ":2226/udp": {to: a:1, sni: {x.example.com: b:1}, proxy_protocol: v2, max_connections: 3}
                  ":2227": {to: a:1, proxy_protocol: 2}
                  ":2228": {to: a:1, health: {path: /healthz}}
                  ":2228": b:1
                """,
                "2:12 streams.\":2222\": the port is missing; write \"gitea:PORT\" (a relayed backend has no default "
                        + "port)",
                "3:12 streams.\":2223\": a relayed backend is host:port, with no scheme or path (the bytes go through "
                        + "as they are); got \"http://gitea:22\"",
                "4:3 streams.\":2224/sctp\": a stream is \"PORT\", \"PORT/tcp\" or \"PORT/udp\", as in "
                        + "\":27015/udp\"; got \"/sctp\"",
                "5:3 streams.\":2225\": missing \"to\": the backend address, or a list of them (or sni: to route by "
                        + "TLS server name)",
                "5:13 streams.\":2225\".upstream: unknown key \"upstream\"; did you mean \"to\"?",
                "6:26 streams.\":2226/udp\".sni: sni routes TLS connections by server name, and needs a TCP stream",
                "6:53 streams.\":2226/udp\".proxy_protocol: the PROXY protocol header starts a TCP connection; a UDP "
                        + "stream has none to start",
                "6:73 streams.\":2226/udp\".max_connections: a UDP stream has sessions, not connections: write "
                        + "max_sessions",
                "7:38 streams.\":2227\".proxy_protocol: expected v1, v2 or off, found a number (2); write v2",
                "8:31 streams.\":2228\".health.path: these backends are checked by connecting to them over TCP (Usher "
                        + "does not speak their protocol), so there is no path; write health: {interval: 10s}",
                "9:3 streams.\":2228\": duplicate stream port \":2228\"; first given on line 8");
    }

    @Test
    void refusesPortsOfUshersOwnListeners() {
        assertErrors("""
                listen: {http: ":8080", https: ":8443"}
                admin: "127.0.0.1:2019"
                streams:
                  ":8080": a:1
                  "127.0.0.1:8443": a:1
                  ":8443/udp": a:1
                  ":2019": a:1
                  ":9000": a:1
                  "127.0.0.1:9000": b:1
                """,
                "4:3 streams.\":8080\": port 8080/tcp is already Usher's listen.http (:8080); pick another port",
                "5:3 streams.\"127.0.0.1:8443\": port 8443/tcp is already Usher's listen.https (:8443); to relay "
                        + "TLS connections by server name on it, give those sites passthrough: true instead",
                "6:3 streams.\":8443/udp\": port 8443/udp is already Usher's HTTP/3 (on the HTTPS port over UDP) "
                        + "(:8443); pick another port, or switch HTTP/3 off (http3: false)",
                "7:3 streams.\":2019\": port 2019/tcp is already Usher's admin (127.0.0.1:2019); pick another port",
                "9:3 streams.\"127.0.0.1:9000\": port 9000/tcp is already the stream \":9000\", on line 8");
    }

    @Test
    void theSamePortOverTcpAndUdpAreTwoStreams() throws ConfigException {
        UsherConfig config = parse("""
                http3: false
                streams:
                  ":53": dns:53
                  ":53/udp": dns:53
                  ":443/udp": quic-app:443
                """);
        assertThat(config.streams()).extracting(StreamSetting::protocol).containsExactly(
                StreamSetting.Protocol.TCP, StreamSetting.Protocol.UDP, StreamSetting.Protocol.UDP);
    }

    @Test
    void readsPassthroughSites() throws ConfigException {
        UsherConfig config = parse("""
                sites:
                  mail.example.com: {passthrough: true, to: mailserver}
                  git.example.com:
                    tls: passthrough
                    to: [g1:8443, g2:8443]
                    proxy_protocol: v1
                    health: {interval: 3s}
                    allow: 192.0.2.0/24
                    timeouts: {idle: 2h}
                  app.example.com: app:80
                """);
        Site mail = config.sites().get(0);
        assertThat(mail.passthrough()).isTrue();
        assertThat(mail.https()).isTrue();
        assertThat(mail.tls().terminated()).isFalse();
        assertThat(mail.upstreams()).containsExactly(new UpstreamAddress("mailserver", 443));
        Site git = config.sites().get(1);
        assertThat(git.proxyProtocol()).isEqualTo(ProxyProtocol.V1);
        assertThat(git.traffic().balancing().health().path()).isNull();
        assertThat(git.traffic().access().allow()).hasSize(1);
        assertThat(git.traffic().websocketIdle()).isEqualTo(Duration.ofHours(2));
        assertThat(config.sites().get(2).passthrough()).isFalse();
        assertThat(config.anyPassthrough()).isTrue();
    }

    @Test
    void explainsPassthroughMistakes() {
        assertErrors("""
                sites:
                  a.example.com: {passthrough: true, to: a, gzip: false, basic_auth: {u: x}}
                  b.example.com: {passthrough: true, tls: internal, to: b}
                  http://c.example.com: {tls: passthrough, to: c}
                  d.example.com: {to: d:80, proxy_protocol: v2}
                  e.example.com: {passthrough: true}
                """,
                "2:45 sites.\"a.example.com\".gzip: \"gzip\" cannot apply to a passthrough site: Usher relays its TLS "
                        + "connections unopened and never sees its requests",
                "2:58 sites.\"a.example.com\".basic_auth: \"basic_auth\" cannot apply to a passthrough site: Usher "
                        + "relays its TLS connections unopened and never sees its requests",
                "3:38 sites.\"b.example.com\".tls: a passthrough site's backend holds its certificate, so Usher needs "
                        + "none: remove tls:",
                "4:3 sites.\"http://c.example.com\": a passthrough site is reached over TLS on the HTTPS port; remove "
                        + "the http:// prefix",
                "5:29 sites.\"d.example.com\".proxy_protocol: proxy_protocol sends the client's address to the backend "
                        + "of a passthrough site (passthrough: true); Usher tells HTTP backends in X-Forwarded-For",
                "6:3 sites.\"e.example.com\": missing \"to\": the backend that holds the certificate, as in app:443");
    }

    @Test
    void readsLoadBalancersThatSendProxyHeaders() throws ConfigException {
        UsherConfig config = parse("""
                listen: {http: ":8080", proxy_protocol: [10.0.0.0/8, "192.0.2.7"]}
                """);
        assertThat(config.listen().proxyProtocolFrom()).extracting(Cidr::toString)
                .containsExactly("10.0.0.0/8", "192.0.2.7/32");
        assertErrors("""
                listen: {proxy_protocol: []}
                proxy_protocol: v2
                """,
                "1:26 listen.proxy_protocol: the list is empty; list the load balancers' addresses, or remove "
                        + "proxy_protocol:",
                "2:1 proxy_protocol: \"proxy_protocol\" belongs under listen: (PROXY headers from load balancers in "
                        + "front) or in a stream or passthrough site (PROXY headers to its backends)");
    }

    private static UsherConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "usher.yaml", ENV);
    }

    private static void assertErrors(String yaml, String... expected) {
        assertThatThrownBy(() -> parse(yaml)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors().stream().map(err -> err.line() + ":" + err.column() + " " + err.path()
                        + ": " + err.message()).toList()).containsExactly(expected));
    }
}
