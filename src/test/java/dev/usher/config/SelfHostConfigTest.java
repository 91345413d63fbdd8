package dev.usher.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The self-hosting options as read from YAML: what they become, and the errors for what is wrong, at their line. */
class SelfHostConfigTest {
    @TempDir
    Path dir;

    private UsherConfig parse(String yaml, Map<String, String> variables) throws ConfigException {
        return ConfigLoader.parse(yaml, "t.yaml", new HostEnvironment("alice", "/home/alice", variables), dir);
    }

    private UsherConfig parse(String yaml) throws ConfigException {
        return parse(yaml, Map.of());
    }

    /** The error messages of {@code yaml}, as "line: message". */
    private List<String> errors(String yaml) {
        try {
            parse(yaml);
        } catch (ConfigException e) {
            return e.errors().stream().map(err -> err.line() + ": " + err.message()).toList();
        }
        throw new AssertionError("no error for:\n" + yaml);
    }

    @Test
    void forwardAuthPresetsFillInThePathAndHeaders() throws Exception {
        UsherConfig config = parse("""
                sites:
                  a.example.com: {to: "app:80", forward_auth: {url: "http://authelia:9091", preset: authelia}}
                  b.example.com: {to: "app:80", forward_auth: {url: "http://ak:9000", preset: authentik}}
                  c.example.com: {to: "app:80", forward_auth: "http://auth:8080/verify?x=1"}
                  d.example.com: {to: "app:80", forward_auth: "https://sso.internal/verify"}
                  e.example.com: {to: "app:80", forward_auth: {url: "https://10.0.0.9:9443", preset: authelia,
                                                             tls: {server_name: sso.internal}}}
                """);
        ForwardAuth a = config.sites().get(0).traffic().forwardAuth();
        assertThat(a.uri()).isEqualTo("/api/authz/forward-auth");
        assertThat(a.copyHeaders()).containsExactly("Remote-User", "Remote-Groups", "Remote-Email", "Remote-Name");
        assertThat(a.timeout()).isEqualTo(ForwardAuth.DEFAULT_TIMEOUT);
        ForwardAuth b = config.sites().get(1).traffic().forwardAuth();
        assertThat(b.uri()).isEqualTo("/outpost.goauthentik.io/auth/caddy");
        assertThat(b.outpostPath()).isEqualTo("/outpost.goauthentik.io/");
        assertThat(b.copyHeaders()).contains("X-Authentik-Username", "X-Authentik-Groups");
        ForwardAuth c = config.sites().get(2).traffic().forwardAuth();
        assertThat(c.uri()).isEqualTo("/verify?x=1");
        assertThat(c.copyHeaders()).isEmpty();
        assertThat(c.server().scheme()).isEqualTo(UpstreamScheme.HTTP);
        // https://: port 443 by default, verified against the system's trust store unless tls: says otherwise
        ForwardAuth d = config.sites().get(3).traffic().forwardAuth();
        assertThat(d.server().scheme()).isEqualTo(UpstreamScheme.HTTPS);
        assertThat(d.server().port()).isEqualTo(443);
        assertThat(d.server().tls()).isEqualTo(UpstreamTls.DEFAULT);
        ForwardAuth e = config.sites().get(4).traffic().forwardAuth();
        assertThat(e.server().tls().serverName()).isEqualTo("sso.internal");
        assertThat(e.server().tls().insecureSkipVerify()).isFalse();
        assertThat(e.uri()).isEqualTo("/api/authz/forward-auth");
    }

    @Test
    void forwardAuthErrors() {
        assertThat(errors("""
                sites:
                  a.example.com: {to: "app:80", forward_auth: {url: "http://auth:80/", tls: {insecure_skip_verify: true}}}
                  b.example.com: {to: "app:80", forward_auth: {copy_headers: [Remote-User]}}
                  c.example.com: {to: "app:80", forward_auth: {url: "http://a:1", copy_headers: [Host]}}
                  d.example.com: {to: "app:80", forward_auth: {url: "http://a:1", preset: keycloak}}
                """)).satisfiesExactly(
                e -> assertThat(e).startsWith("2: tls: is for an https:// auth server"),
                e -> assertThat(e).startsWith("3: missing \"url\""),
                e -> assertThat(e).startsWith("4: Host cannot be copied onto a request"),
                e -> assertThat(e).startsWith("5: ").contains("keycloak"));
    }

    @Test
    void staticRootsAndTheirErrors() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Files.writeString(www.resolve("index.html"), "hi");
        UsherConfig config = parse("""
                sites:
                  a.example.com: {root: www, spa: index.html, browse: true}
                """);
        StaticRoot root = config.sites().get(0).traffic().files();
        assertThat(root.root()).isEqualTo(www);
        assertThat(root.spa()).isEqualTo("index.html");
        assertThat(root.browse()).isTrue();
        assertThat(config.sites().get(0).serves()).isEqualTo(new Serves.Files(root));
        assertThat(errors("""
                sites:
                  a.example.com: {root: missing}
                  b.example.com: {to: "app:80", browse: true}
                  c.example.com: {root: www, to: "app:80"}
                  d.example.com: {root: www, wait_for_backend: 10s}
                """)).hasSizeGreaterThanOrEqualTo(4).anySatisfy(e -> assertThat(e).startsWith("2: "))
                .anySatisfy(e -> assertThat(e).startsWith("3: browse only applies to a site served from a folder"))
                .anySatisfy(e -> assertThat(e).startsWith("4: ").contains("pick one"))
                .anySatisfy(e -> assertThat(e).startsWith("5: "));
    }

    @Test
    void pagesMaintenanceAndWaiting() throws Exception {
        Files.writeString(dir.resolve("502.html"), "<h1>restarting</h1>");
        Files.writeString(dir.resolve("oops.txt"), "oops");
        UsherConfig config = parse("""
                error_pages: {502: 502.html, 5xx: oops.txt}
                sites:
                  a.example.com:
                    to: app:80
                    error_pages: {5xx: 502.html, intercept: true}
                    maintenance: {file: MAINTENANCE, allow: [10.0.0.0/8], retry_after: 1m}
                    wait_for_backend: {for: 20s, max_requests: 5}
                  b.example.com: {to: "app:80", maintenance: true, wait_for_backend: 10s}
                """);
        SiteTraffic a = config.sites().get(0).traffic();
        assertThat(new String(a.errorPages().forStatus(502).body())).as("the site's class over the global status")
                .isEqualTo("<h1>restarting</h1>");
        assertThat(a.errorPages().intercept()).isTrue();
        assertThat(a.maintenance().flagFile()).isEqualTo(dir.resolve("MAINTENANCE"));
        assertThat(a.maintenance().retryAfter()).isEqualTo(Duration.ofMinutes(1));
        assertThat(a.waitForBackend()).isEqualTo(new BackendWait(Duration.ofSeconds(20), 5));
        SiteTraffic b = config.sites().get(1).traffic();
        assertThat(b.errorPages().forStatus(504).contentType()).startsWith("text/plain");
        assertThat(b.maintenance().flagFile()).isNull();
        assertThat(b.waitForBackend().maxRequests()).isEqualTo(BackendWait.DEFAULT_MAX_REQUESTS);
        assertThat(errors("""
                error_pages: {502: nowhere.html, 302: 502.html}
                sites:
                  a.example.com: {to: "app:80", wait_for_backend: 10m, maintenance: /no/such/folder/FLAG}
                """)).hasSize(4);
    }

    @Test
    void theCrowdSecKeyComesFromAFileOrTheEnvironmentNeverTheConfig() throws Exception {
        Files.writeString(dir.resolve("cs.key"), "abc123\n");
        UsherConfig fromFile = parse("crowdsec: {url: \"http://127.0.0.1:8080\", key_file: cs.key, interval: 5s}\n");
        assertThat(fromFile.crowdsec().apiKey()).isEqualTo("abc123");
        assertThat(fromFile.crowdsec().interval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(fromFile.crowdsec().toString()).doesNotContain("abc123");
        UsherConfig fromEnv = parse("crowdsec: {key: \"${CS_KEY}\"}\n", Map.of("CS_KEY", "def456"));
        assertThat(fromEnv.crowdsec().apiKey()).isEqualTo("def456");
        assertThat(fromEnv.crowdsec().url().toString()).isEqualTo("http://127.0.0.1:8080");
        List<String> inline = errors("crowdsec: {key: abc123}\n");
        assertThat(inline).singleElement().asString().contains("does not belong in usher.yaml")
                .doesNotContain("abc123");
        assertThat(errors("crowdsec: {url: \"http://127.0.0.1:8080/v1\", key_file: cs.key, interval: 100ms}\n"))
                .hasSize(2);
    }
}
