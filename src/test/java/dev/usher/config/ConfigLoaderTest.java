package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private static final Path EXAMPLE = Path.of("src", "test", "resources", "config", "example.yaml");
    private static final HostEnvironment ALICE = new HostEnvironment("alice", "/home/alice");
    private static final HostEnvironment ROOT = new HostEnvironment("root", "/root");

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
                new Site("*.dev.example.com", false, List.of(new UpstreamAddress("127.0.0.1", 3000)), 0, connect,
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
                timeouts: {connect: 3s, response: 2m, header: 4s, idle: 90s}
                limits: {max_body: 1MB, header_size: 8k, connections: 50}
                sites:
                  inherit.example.com: app:80
                  body.example.com: {to: app:80, max_body: 0}
                  connect.example.com: {to: app:80, timeouts: {connect: 500ms}}
                  response.example.com: {to: app:80, timeouts: {response: 1m30s}}
                  empty.example.com: {to: app:80, timeouts: }
                """);

        assertThat(config.timeouts()).isEqualTo(new Timeouts(Duration.ofSeconds(3), Duration.ofMinutes(2),
                Duration.ofSeconds(4), Duration.ofSeconds(90)));
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
        assertThat(ConfigLoader.parse("data: relative/dir\n", "x.yaml", ALICE).dataDir())
                .isEqualTo(Path.of("relative/dir"));
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
                  "*.Dev.example.com": a:80
                  http://example.net/: a:80
                """);

        assertThat(config.sites()).extracting(Site::name, Site::plainHttp).containsExactly(
                tuple("app.example.com", false), tuple("plain.example.com", true),
                tuple("secure.example.com", false), tuple("localhost", false), tuple("127.0.0.1", false),
                tuple("::1", false), tuple("*.dev.example.com", false), tuple("example.net", true));
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
                        t.yaml:1:1: foo: unknown key "foo"; expected one of: listen, data, timeouts, limits, sites
                        t.yaml:2:1: bar: unknown key "bar"; expected one of: listen, data, timeouts, limits, sites""");
    }

    private static ListenAddress listen(String entry) throws ConfigException {
        return parse("listen:\n  " + entry + "\n").listen().http();
    }

    private static UsherConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse(yaml, "t.yaml", ALICE);
    }

    private static org.assertj.core.groups.Tuple tuple(Object... values) {
        return org.assertj.core.groups.Tuple.tuple(values);
    }
}
