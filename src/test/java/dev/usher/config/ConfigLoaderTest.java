package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private static final Path EXAMPLE = Path.of("src", "test", "resources", "config", "example.yaml");
    private static final Path TRAFFIC_EXAMPLE = Path.of("src", "test", "resources", "config",
            "traffic-example.yaml");
    private static final HostEnvironment ALICE = new HostEnvironment("alice", "/home/alice");
    private static final HostEnvironment ROOT = new HostEnvironment("root", "/root");
    /** A well-formed bcrypt hash (cost 10). */
    private static final String HASH = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";

    @Test
    void keepAliveIdleComesFromTheTopLevelUnlessTheSiteSetsItsOwn() throws Exception {
        UsherConfig config = ConfigLoader.parse("""
                timeouts: {idle: 5s}
                sites:
                  short.example.com: app:80
                  long.example.com: {to: app:80}
                  own.example.com: {to: app:80, timeouts: {idle: 2s}}
                """, "idle.yaml");
        assertThat(config.sites()).extracting(site -> site.traffic().keepAliveIdle())
                .containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(2));
    }

    @Test
    void readsTheDocumentedExample() throws Exception {
        UsherConfig config = ConfigLoader.load(EXAMPLE);

        assertThat(config.source()).isEqualTo(EXAMPLE.toString());
        assertThat(config.listen().http()).isEqualTo(new ListenAddress("", 80));
        assertThat(config.dataDir()).isEqualTo(Path.of("/var/lib/usher"));
        assertThat(config.timeouts()).isEqualTo(new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60),
                Duration.ofSeconds(10), Duration.ofSeconds(60)));
        assertThat(config.limits()).isEqualTo(new Limits(16 * 1024, 0, 10_000));
        Duration connect = Duration.ofSeconds(5);
        Duration response = Duration.ofSeconds(60);
        assertThat(config.sites()).containsExactly(
                new Site("app1.example.com", false, List.of(new UpstreamAddress("app1", 80)), 0, connect, response,
                        15, 3),
                new Site("app2.example.com", false, List.of(new UpstreamAddress("10.0.0.7", 8080)), 0, connect,
                        response, 16, 3),
                new Site("*.dev.localhost", false, List.of(new UpstreamAddress("127.0.0.1", 3000)), 0, connect,
                        response, 17, 3),
                new Site("plain.example.com", true, List.of(new UpstreamAddress("127.0.0.1", 8081)), 0, connect,
                        response, 18, 3),
                new Site("multi.example.com", false, List.of(new UpstreamAddress("a", 80),
                        new UpstreamAddress("b", 80)), 0, connect, response, 19, 3),
                new Site("long.example.com", false, List.of(new UpstreamAddress("a", 80),
                        new UpstreamAddress("b", 80)), 10 * 1024 * 1024, Duration.ofSeconds(2),
                        Duration.ofSeconds(300), 20, 3));
        assertThat(config.sites().get(2).wildcard()).isTrue();
    }

    @Test
    void sitesInheritGlobalValuesAndOverrideThemOneByOne() throws Exception {
        UsherConfig config = parse("""
                timeouts: {connect: 3s, response: 2m, header: 4s, idle: 90s, shutdown: 30s}
                limits: {max_body: 1MB, header_size: 8k, connections: 50}
                sites:
                  inherit.example.com: app:80
                  body.example.com: {to: app:80, max_body: 0}
                  connect.example.com: {to: app:80, timeouts: {connect: 500ms}}
                  response.example.com: {to: app:80, timeouts: {response: 1m30s}}
                  empty.example.com: {to: app:80, timeouts: }
                """);

        assertThat(config.timeouts()).isEqualTo(new Timeouts(Duration.ofSeconds(3), Duration.ofMinutes(2),
                Duration.ofSeconds(4), Duration.ofSeconds(90), Duration.ofSeconds(30)));
        assertThat(config.limits()).isEqualTo(new Limits(8192, 1_000_000, 50));
        assertThat(config.sites()).extracting(Site::name, Site::maxBody, Site::connectTimeout, Site::responseTimeout)
                .containsExactly(
                        tuple("inherit.example.com", 1_000_000L, Duration.ofSeconds(3), Duration.ofMinutes(2)),
                        tuple("body.example.com", 0L, Duration.ofSeconds(3), Duration.ofMinutes(2)),
                        tuple("connect.example.com", 1_000_000L, Duration.ofMillis(500), Duration.ofMinutes(2)),
                        tuple("response.example.com", 1_000_000L, Duration.ofSeconds(3), Duration.ofSeconds(90)),
                        tuple("empty.example.com", 1_000_000L, Duration.ofSeconds(3), Duration.ofMinutes(2)));
    }

    @Test
    void emptyFileGivesDefaults() throws Exception {
        for (String yaml : List.of("", "# only a comment\n\n# and another\n", "---\n", "sites:\n", "\uFEFF")) {
            UsherConfig config = ConfigLoader.parse(yaml, "empty.yaml", ALICE);
            assertThat(config.source()).isEqualTo("empty.yaml");
            assertThat(config.listen().http()).isEqualTo(new ListenAddress("", 80));
            assertThat(config.dataDir()).isEqualTo(Path.of("/home/alice/.local/share/usher"));
            assertThat(config.timeouts()).isEqualTo(Timeouts.DEFAULTS);
            assertThat(config.limits()).isEqualTo(Limits.DEFAULTS);
            assertThat(config.sites()).isEmpty();
        }
    }

    @Test
    void dataDirDefaultsToVarLibForRootAndExpandsTilde() throws Exception {
        assertThat(ConfigLoader.parse("", "x.yaml", ROOT).dataDir()).isEqualTo(Path.of("/var/lib/usher"));
        assertThat(ConfigLoader.parse("data: ~/usher\n", "x.yaml", ALICE).dataDir())
                .isEqualTo(Path.of("/home/alice/usher"));
        assertThat(ConfigLoader.parse("data: relative/dir\n", "x.yaml", ALICE, Path.of("/etc/usher")).dataDir())
                .isEqualTo(Path.of("/etc/usher/relative/dir"));
    }

    @Test
    void relativeDataDirIsTakenFromTheConfigFilesFolder(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("usher.yaml");
        java.nio.file.Files.writeString(file, "data: state\n");
        assertThat(ConfigLoader.load(file).dataDir()).isEqualTo(dir.toAbsolutePath().resolve("state"));
    }

    @Test
    void httpsListensOn443ByDefaultAndCanBeMovedOrSwitchedOff() throws Exception {
        assertThat(parse("sites: {}\n").listen().https()).isEqualTo(new ListenAddress("", 443));
        assertThat(parse("listen: {https: \"127.0.0.1:8443\"}\n").listen().https())
                .isEqualTo(new ListenAddress("127.0.0.1", 8443));
        for (String off : List.of("off", "false", "none")) {
            UsherConfig config = parse("listen: {https: " + off + "}\nsites:\n  app.example.com: a:80\n");
            assertThat(config.listen().httpsOn()).isFalse();
            assertThat(config.sites().get(0).tls()).isEqualTo(TlsPolicy.NONE);
        }
    }

    @Test
    void tlsAutoGivesLocalNamesTheLocalCaAndPublicNamesAcme() throws Exception {
        UsherConfig config = parse("""
                sites:
                  app.example.com: a:80
                  localhost: a:80
                  app.localhost: a:80
                  "*.dev.localhost": a:80
                  127.0.0.1: a:80
                  "[::1]": a:80
                  nas.lan: a:80
                  printer.home.arpa: a:80
                  db.internal: a:80
                  app.test: a:80
                  http://plain.example.com: a:80
                  forced.example.com: {to: a:80, tls: internal}
                  forced.localhost: {to: a:80, tls: acme}
                  off.example.com: {to: a:80, tls: off}
                """);
        assertThat(config.sites()).extracting(Site::name, s -> s.tls().kind()).containsExactly(
                tuple("app.example.com", TlsPolicy.Kind.ACME), tuple("localhost", TlsPolicy.Kind.INTERNAL),
                tuple("app.localhost", TlsPolicy.Kind.INTERNAL), tuple("*.dev.localhost", TlsPolicy.Kind.INTERNAL),
                tuple("127.0.0.1", TlsPolicy.Kind.INTERNAL), tuple("::1", TlsPolicy.Kind.INTERNAL),
                tuple("nas.lan", TlsPolicy.Kind.INTERNAL), tuple("printer.home.arpa", TlsPolicy.Kind.INTERNAL),
                tuple("db.internal", TlsPolicy.Kind.INTERNAL), tuple("app.test", TlsPolicy.Kind.INTERNAL),
                tuple("plain.example.com", TlsPolicy.Kind.NONE), tuple("forced.example.com", TlsPolicy.Kind.INTERNAL),
                tuple("forced.localhost", TlsPolicy.Kind.ACME), tuple("off.example.com", TlsPolicy.Kind.NONE));
        assertThat(config.sites().get(10).https()).isFalse();
        assertThat(config.sites().get(0).https()).isTrue();
    }

    @Test
    void tlsFilesAreResolvedAgainstTheConfigFolder(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("cert.pem"), "x");
        java.nio.file.Files.writeString(dir.resolve("key.pem"), "x");
        Path file = dir.resolve("usher.yaml");
        java.nio.file.Files.writeString(file, "sites:\n  app.example.com: {to: a:80, tls: {cert: cert.pem, "
                + "key: key.pem}}\n");
        Site site = ConfigLoader.load(file).sites().get(0);
        assertThat(site.tls()).isEqualTo(TlsPolicy.files(dir.toAbsolutePath().resolve("cert.pem"),
                dir.toAbsolutePath().resolve("key.pem")));
    }

    @Test
    void theAdminEndpointIsOnLoopbackByDefaultAndCanBeMovedOrSwitchedOff() throws Exception {
        assertThat(parse("sites: {}\n").admin()).isEqualTo(new ListenAddress("127.0.0.1", 2019));
        assertThat(parse("admin: \"127.0.0.1:9000\"\n").admin()).isEqualTo(new ListenAddress("127.0.0.1", 9000));
        assertThat(parse("admin: {listen: \"[::1]:9001\"}\n").admin()).isEqualTo(new ListenAddress("::1", 9001));
        assertThat(parse("admin: off\n").admin()).isNull();
    }

    @Test
    void readsTheAcmeSettings() throws Exception {
        AcmeSettings defaults = parse("sites: {}\n").acme();
        assertThat(defaults).isEqualTo(AcmeSettings.DEFAULTS);
        AcmeSettings acme = parse("""
                email: admin@example.com
                acme:
                  ca: letsencrypt-staging
                  challenge: tls-alpn-01
                """).acme();
        assertThat(acme.email()).isEqualTo("admin@example.com");
        assertThat(acme.directory()).isEqualTo(AcmeSettings.LETS_ENCRYPT_STAGING);
        assertThat(acme.challenges()).containsExactly(AcmeSettings.ChallengeType.TLS_ALPN_01);
        AcmeSettings custom = parse("acme: {ca: \"https://ca.internal:14000/dir\", email: ops@example.org, "
                + "challenge: [tls-alpn-01, http-01]}\n").acme();
        assertThat(custom.directory()).hasToString("https://ca.internal:14000/dir");
        assertThat(custom.email()).isEqualTo("ops@example.org");
        assertThat(custom.challenges()).containsExactly(AcmeSettings.ChallengeType.TLS_ALPN_01,
                AcmeSettings.ChallengeType.HTTP_01);
    }

    @Test
    void readsFiveShortFormSites() throws Exception {
        UsherConfig config = parse("""
                sites:
                  app1.example.com: app1:80
                  app2.example.com: app2:80
                  app3.example.com: app3:8080
                  api.example.com: api:3000
                  ws.example.com: appws:80
                """);

        assertThat(config.sites()).extracting(Site::name).containsExactly("app1.example.com", "app2.example.com",
                "app3.example.com", "api.example.com", "ws.example.com");
        assertThat(config.sites()).extracting(s -> s.upstreams().get(0).authority()).containsExactly("app1:80",
                "app2:80", "app3:8080", "api:3000", "appws:80");
        assertThat(config.sites()).extracting(Site::line).containsExactly(2, 3, 4, 5, 6);
        assertThat(config.sites()).allSatisfy(s -> {
            assertThat(s.plainHttp()).isFalse();
            assertThat(s.column()).isEqualTo(3);
            assertThat(s.maxBody()).isZero();
            assertThat(s.connectTimeout()).isEqualTo(Timeouts.DEFAULTS.connect());
            assertThat(s.responseTimeout()).isEqualTo(Timeouts.DEFAULTS.response());
        });
    }

    @Test
    void readsUpstreamForms() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: app
                  b.example.com: http://app:8080
                  c.example.com: "[::1]:3000"
                  d.example.com: ["[2001:db8::7]", "http://[::ffff:10.0.0.1]:81/", web_1:80, App.Internal.:9000]
                """);

        assertThat(config.sites()).flatExtracting(Site::upstreams).containsExactly(
                new UpstreamAddress("app", 80), new UpstreamAddress("app", 8080), new UpstreamAddress("::1", 3000),
                new UpstreamAddress("2001:db8::7", 80), new UpstreamAddress("::ffff:10.0.0.1", 81),
                new UpstreamAddress("web_1", 80), new UpstreamAddress("app.internal", 9000));
        assertThat(config.sites().get(2).upstreams().get(0).authority()).isEqualTo("[::1]:3000");
    }

    @Test
    void readsSiteNameForms() throws Exception {
        UsherConfig config = parse("""
                sites:
                  App.Example.COM.: a:80
                  HTTP://plain.example.com: a:80
                  https://secure.example.com: a:80
                  localhost: a:80
                  127.0.0.1: a:80
                  "[::1]": a:80
                  "*.Dev.localhost": a:80
                  http://example.net/: a:80
                """);

        assertThat(config.sites()).extracting(Site::name, Site::plainHttp).containsExactly(
                tuple("app.example.com", false), tuple("plain.example.com", true),
                tuple("secure.example.com", false), tuple("localhost", false), tuple("127.0.0.1", false),
                tuple("::1", false), tuple("*.dev.localhost", false), tuple("example.net", true));
    }

    @Test
    void readsListenForms() throws Exception {
        assertThat(listen("http: \":80\"")).isEqualTo(new ListenAddress("", 80));
        assertThat(listen("http: :8080")).isEqualTo(new ListenAddress("", 8080));
        assertThat(listen("http: \"8080\"")).isEqualTo(new ListenAddress("", 8080));
        assertThat(listen("http: 8080")).isEqualTo(new ListenAddress("", 8080));
        assertThat(listen("http: 0")).isEqualTo(new ListenAddress("", 0));
        assertThat(listen("http: 127.0.0.1:8080")).isEqualTo(new ListenAddress("127.0.0.1", 8080));
        assertThat(listen("http: localhost:8080")).isEqualTo(new ListenAddress("127.0.0.1", 8080));
        assertThat(listen("http: \"[::1]:8080\"")).isEqualTo(new ListenAddress("::1", 8080));
        assertThat(listen("http: \"[::]:0\"")).isEqualTo(new ListenAddress("::", 0));
    }

    @Test
    void sharesSettingsThroughAnchorsAndMergeKeys() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: &slow
                    to: a:80
                    timeouts: {response: 10m}
                  b.example.com:
                    <<: *slow
                    to: b:80
                """);

        assertThat(config.sites()).extracting(s -> s.upstreams().get(0).host(), Site::responseTimeout)
                .containsExactly(tuple("a", Duration.ofMinutes(10)), tuple("b", Duration.ofMinutes(10)));
    }

    @Test
    void loadReadsFilesAndNamesThemAsGiven(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, "sites:\n  app.example.com: app:80\n  bad: app:0\n");

        assertThatThrownBy(() -> ConfigLoader.load(file)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors()).containsExactly(new ConfigError(file.toString(), 3, 8,
                        "sites.bad", "port 0 is out of range; use a number from 1 to 65535")));
    }

    @Test
    void reportsInvalidUtf8AtItsPosition(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("usher.yaml");
        byte[] prefix = "sites:\n  caf".getBytes(StandardCharsets.UTF_8);
        byte[] bytes = new byte[prefix.length + 1];
        System.arraycopy(prefix, 0, bytes, 0, prefix.length);
        bytes[prefix.length] = (byte) 0xE9;
        Files.write(file, bytes);

        assertThatThrownBy(() -> ConfigLoader.load(file)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors()).extracting(ConfigError::line, ConfigError::column)
                        .containsExactly(tuple(2, 6)));
    }

    @Test
    void exceptionMessageListsEveryErrorLine() {
        assertThatThrownBy(() -> parse("foo: 1\nbar: 2\n")).isInstanceOf(ConfigException.class)
                .hasMessage("""
                        t.yaml:1:1: foo: unknown key "foo"; expected one of: listen, data, timeouts, limits, sites, \
                        trusted_proxies, email, acme, admin, access_log, http3, docker, streams, error_pages, crowdsec, storage
                        t.yaml:2:1: bar: unknown key "bar"; expected one of: listen, data, timeouts, limits, sites, \
                        trusted_proxies, email, acme, admin, access_log, http3, docker, streams, error_pages, crowdsec, storage""");
    }

    @Test
    void readsEveryTrafficOptionOfALongFormSite() throws Exception {
        UsherConfig config = parse("""
                sites:
                  app.example.com:
                    to: [a:80, b:80]
                    max_body: 10MiB
                    timeouts: {connect: 2s, response: 300s, read: 30s, write: 45s, websocket: 2h}
                    gzip: false
                    policy: least_conn
                    health: {path: /healthz, interval: 5s, timeout: 1s, max_fails: 2, fail_timeout: 1m}
                    headers:
                      X-Frame-Options: DENY
                      +Link: "</a.css>; rel=preload"
                      -Server: ~
                      Access-Control-Max-Age: 600
                    request_headers: {X-Env: prod, -Cookie: ~, +X-Tag: "", -X-Debug: ignored}
                    security_headers: true
                    basic_auth: {alice: "%s"}
                    allow: [10.0.0.0/8, 192.168.1.7, "2001:db8::/32"]
                    deny: 10.6.6.0/24
                    rate_limit: {requests: 100, per: 1m, burst: 20}
                """.formatted(HASH));

        Site site = config.sites().get(0);
        assertThat(site.upstreams()).containsExactly(new UpstreamAddress("a", 80), new UpstreamAddress("b", 80));
        assertThat(site.forwards()).isTrue();
        assertThat(site.maxBody()).isEqualTo(10L * 1024 * 1024);
        assertThat(site.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(site.responseTimeout()).isEqualTo(Duration.ofSeconds(300));
        SiteTraffic t = site.traffic();
        assertThat(t.readTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(t.writeTimeout()).isEqualTo(Duration.ofSeconds(45));
        assertThat(t.websocketIdle()).isEqualTo(Duration.ofHours(2));
        assertThat(t.compress()).isFalse();
        assertThat(t.balancing()).isEqualTo(new Balancing(Balancing.Policy.LEAST_CONN, 2, Duration.ofMinutes(1),
                new Balancing.HealthCheck("/healthz", Duration.ofSeconds(5), Duration.ofSeconds(1))));
        assertThat(t.responseHeaders()).containsExactly(
                new HeaderRule(HeaderRule.Op.SET, "X-Frame-Options", "DENY"),
                new HeaderRule(HeaderRule.Op.ADD, "Link", "</a.css>; rel=preload"),
                new HeaderRule(HeaderRule.Op.REMOVE, "Server", ""),
                new HeaderRule(HeaderRule.Op.SET, "Access-Control-Max-Age", "600"));
        assertThat(t.requestHeaders()).containsExactly(
                new HeaderRule(HeaderRule.Op.SET, "X-Env", "prod"),
                new HeaderRule(HeaderRule.Op.REMOVE, "Cookie", ""),
                new HeaderRule(HeaderRule.Op.ADD, "X-Tag", ""),
                new HeaderRule(HeaderRule.Op.REMOVE, "X-Debug", ""));
        assertThat(t.securityHeaders()).isTrue();
        assertThat(t.access()).isEqualTo(new Access(
                List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("192.168.1.7/32"), Cidr.parse("2001:db8::/32")),
                List.of(Cidr.parse("10.6.6.0/24")), Map.of("alice", HASH)));
        assertThat(t.rateLimit()).isEqualTo(new RateLimit(100, Duration.ofMinutes(1), 20));
        assertThat(t.redirect()).isNull();
        assertThat(t.respond()).isNull();
    }

    @Test
    void readsTheTrafficExampleOfTheDocs() throws Exception {
        UsherConfig config = ConfigLoader.load(TRAFFIC_EXAMPLE);

        assertThat(config.trustedProxies()).containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::/32"));
        assertThat(config.sites()).extracting(Site::name, Site::forwards).containsExactly(
                tuple("app.example.com", true), tuple("www.example.com", false), tuple("old.example.com", false),
                tuple("teapot.example.com", false), tuple("gone.example.com", false),
                tuple("hello.example.com", false));
        SiteTraffic app = config.sites().get(0).traffic();
        assertThat(app.balancing()).isEqualTo(new Balancing(Balancing.Policy.LEAST_CONN, 3, Duration.ofSeconds(30),
                new Balancing.HealthCheck("/healthz", Duration.ofSeconds(10), Duration.ofSeconds(2))));
        assertThat(app.responseHeaders()).extracting(HeaderRule::op).containsExactly(HeaderRule.Op.SET,
                HeaderRule.Op.ADD, HeaderRule.Op.REMOVE);
        assertThat(app.access().basicAuth()).containsOnlyKeys("alice");
        assertThat(config.sites()).extracting(s -> s.traffic().redirect()).containsExactly(null,
                new Redirect("https://example.com{uri}", 308), new Redirect("https://new.example.com{uri}", 301),
                null, null, null);
        assertThat(config.sites()).extracting(s -> s.traffic().respond()).containsExactly(null, null, null,
                new FixedAnswer(418, "I'm a teapot\n", "text/plain"),
                new FixedAnswer(410, "", "text/plain; charset=utf-8"),
                new FixedAnswer(200, "hello\n", "text/plain; charset=utf-8"));
    }

    @Test
    void sharesTrafficOptionsThroughMergeKeys() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: &guarded
                    to: a:80
                    allow: 10.0.0.0/8
                    headers: {X-Frame-Options: DENY}
                    rate_limit: {requests: 10, per: 1s}
                  b.example.com:
                    <<: *guarded
                    to: b:80
                """);

        assertThat(config.sites().get(1).traffic()).isEqualTo(config.sites().get(0).traffic());
        assertThat(config.sites().get(1).traffic().rateLimit()).isEqualTo(new RateLimit(10, Duration.ofSeconds(1),
                0));
    }

    @Test
    void absentTrafficOptionsTakeTheDefaults() throws Exception {
        UsherConfig config = parse("""
                sites:
                  short.example.com: app:80
                  long.example.com: {to: app:80}
                  empty.example.com: {to: app:80, timeouts: {connect: 1s}, health: , headers: , rate_limit: }
                """);

        assertThat(config.sites()).extracting(Site::traffic).containsOnly(SiteTraffic.DEFAULTS);
        assertThat(SiteTraffic.DEFAULTS.readTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(SiteTraffic.DEFAULTS.writeTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(SiteTraffic.DEFAULTS.websocketIdle()).isEqualTo(Duration.ofHours(1));
        assertThat(SiteTraffic.DEFAULTS.compress()).isTrue();
        assertThat(config.trustedProxies()).isEmpty();
    }

    @Test
    void compressIsTheSameSettingAsGzip() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: {to: app:80, compress: false}
                  b.example.com: {to: app:80, compress: true}
                """);

        assertThat(config.sites()).extracting(s -> s.traffic().compress()).containsExactly(false, true);
        assertThatThrownBy(() -> parse("sites:\n  a.example.com: {to: app:80, gzip: true, compress: false}\n"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                        new ConfigError("t.yaml", 2, 43, "sites.\"a.example.com\".compress",
                                "\"compress\" and \"gzip\" are the same setting, already given on line 2; keep one")));
    }

    @Test
    void readsEachBalancingPolicyAndPassiveHealthWithoutPath() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: {to: [a:80, b:80], policy: round_robin}
                  b.example.com: {to: [a:80, b:80], policy: least_conn}
                  c.example.com: {to: [a:80, b:80], policy: first, health: {max_fails: 5}}
                  d.example.com: {to: [a:80, b:80], policy: ip_hash, health: {fail_timeout: 10s}}
                  e.example.com: {to: [a:80, b:80], health: {path: /up}}
                  f.example.com: {to: [a:80, b:80], health: {path: /up, interval: 1s}}
                """);

        assertThat(config.sites()).extracting(s -> s.traffic().balancing()).containsExactly(
                new Balancing(Balancing.Policy.ROUND_ROBIN, 3, Duration.ofSeconds(30), null),
                new Balancing(Balancing.Policy.LEAST_CONN, 3, Duration.ofSeconds(30), null),
                new Balancing(Balancing.Policy.FIRST, 5, Duration.ofSeconds(30), null),
                new Balancing(Balancing.Policy.IP_HASH, 3, Duration.ofSeconds(10), null),
                new Balancing(Balancing.Policy.ROUND_ROBIN, 3, Duration.ofSeconds(30),
                        new Balancing.HealthCheck("/up", Duration.ofSeconds(10), Duration.ofSeconds(2))),
                new Balancing(Balancing.Policy.ROUND_ROBIN, 3, Duration.ofSeconds(30),
                        new Balancing.HealthCheck("/up", Duration.ofSeconds(1), Duration.ofMillis(500))));
    }

    @Test
    void readsRedirectSitesWithoutUpstreams() throws Exception {
        UsherConfig config = parse("""
                sites:
                  www.example.com: {redirect: "https://example.com{uri}"}
                  old.example.com: {redirect: {to: "https://new.example.com{path}?{query}", status: 301}}
                  http://any.example.com: {redirect: "https://{host}{uri}", headers: {X-Moved: "yes"}}
                  moved.example.com: {redirect: {to: /new, status: 302}}
                  scheme.example.com: {redirect: "{scheme}://example.org{uri}"}
                """);

        assertThat(config.sites()).allSatisfy(s -> {
            assertThat(s.upstreams()).isEmpty();
            assertThat(s.forwards()).isFalse();
            assertThat(s.traffic().respond()).isNull();
        });
        assertThat(config.sites()).extracting(s -> s.traffic().redirect()).containsExactly(
                new Redirect("https://example.com{uri}", 308),
                new Redirect("https://new.example.com{path}?{query}", 301),
                new Redirect("https://{host}{uri}", 308),
                new Redirect("/new", 302),
                new Redirect("{scheme}://example.org{uri}", 308));
        assertThat(config.sites().get(2).traffic().responseHeaders())
                .containsExactly(new HeaderRule(HeaderRule.Op.SET, "X-Moved", "yes"));
        assertThat(config.sites()).extracting(Site::line).containsExactly(2, 3, 4, 5, 6);
    }

    @Test
    void readsRespondSitesWithoutUpstreams() throws Exception {
        UsherConfig config = parse("""
                sites:
                  teapot.example.com: {respond: {status: 418, body: "I'm a teapot\\n", content_type: text/plain}}
                  gone.example.com: {respond: 410}
                  hello.example.com: {respond: "hello\\n"}
                  empty.example.com: {respond: {}}
                  html.example.com:
                    respond:
                      body: "<h1>Soon</h1>"
                      content_type: text/html; charset=utf-8
                    allow: 10.0.0.0/8
                """);

        assertThat(config.sites()).allSatisfy(s -> {
            assertThat(s.upstreams()).isEmpty();
            assertThat(s.traffic().redirect()).isNull();
        });
        assertThat(config.sites()).extracting(s -> s.traffic().respond()).containsExactly(
                new FixedAnswer(418, "I'm a teapot\n", "text/plain"),
                new FixedAnswer(410, "", "text/plain; charset=utf-8"),
                new FixedAnswer(200, "hello\n", "text/plain; charset=utf-8"),
                new FixedAnswer(200, "", "text/plain; charset=utf-8"),
                new FixedAnswer(200, "<h1>Soon</h1>", "text/html; charset=utf-8"));
        assertThat(config.sites().get(4).traffic().access().allow()).containsExactly(Cidr.parse("10.0.0.0/8"));
    }

    @Test
    void readsTrustedProxies() throws Exception {
        assertThat(parse("trusted_proxies: [10.0.0.0/8, \"2001:db8::/32\", 192.0.2.7]\n").trustedProxies())
                .containsExactly(Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::/32"), Cidr.parse("192.0.2.7/32"));
        assertThat(parse("trusted_proxies: 127.0.0.1\n").trustedProxies())
                .containsExactly(Cidr.parse("127.0.0.1/32"));
        assertThat(parse("trusted_proxies: []\n").trustedProxies()).isEmpty();
        assertThat(parse("trusted_proxies:\n").trustedProxies()).isEmpty();
    }

    @Test
    void acceptsOnlyRealBooleans() throws Exception {
        assertThat(parse("sites:\n  a.example.com: {to: a:80, gzip: False, security_headers: TRUE}\n").sites()
                .get(0).traffic()).extracting(SiteTraffic::compress, SiteTraffic::securityHeaders)
                .containsExactly(false, true);
        assertThatThrownBy(() -> parse("sites:\n  a.example.com: {to: a:80, gzip: \"false\", security_headers: yes}\n"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors())
                        .extracting(ConfigError::message).containsExactly(
                                "expected true or false, found a string (\"false\"); write false without quotes",
                                "expected true or false, found a string (\"yes\"); YAML 1.2 reads yes as text, "
                                        + "so write true or false"));
    }

    private static ListenAddress listen(String entry) throws ConfigException {
        return parse("listen:\n  " + entry + "\n").listen().http();
    }

    @Test
    void http3IsOnByDefaultWhereverHttpsIsAndCanBeTurnedOff() throws Exception {
        assertThat(parse("sites: {a.example.com: app:80}\n").listen().http3On()).isTrue();
        UsherConfig off = parse("http3: false\nsites: {a.example.com: app:80}\n");
        assertThat(off.listen().http3()).isFalse();
        assertThat(off.listen().http3On()).isFalse();
        assertThat(off.listen().httpsOn()).isTrue();
        UsherConfig noHttps = parse("listen: {https: off}\nhttp3: true\nsites: {a.example.com: app:80}\n");
        assertThat(noHttps.listen().http3On()).isFalse();
    }

    private static UsherConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "t.yaml", ALICE);
    }

    private static org.assertj.core.groups.Tuple tuple(Object... values) {
        return org.assertj.core.groups.Tuple.tuple(values);
    }
}
