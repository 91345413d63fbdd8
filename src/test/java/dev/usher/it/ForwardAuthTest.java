package dev.usher.it;

import dev.usher.testing.AutheliaForwardAuthServer;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code forward_auth:} against {@link AutheliaForwardAuthServer}, a server started in the test that follows
 * Authelia's documented forward-auth contract: allowed with the user's headers copied, redirected to the login
 * portal with its body, the client's spoofed identity headers stripped, the auth server down or slow, over HTTP/1.1
 * and HTTP/2; the Authentik preset's outpost path.
 */
class ForwardAuthTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static AutheliaForwardAuthServer authelia;
    static RunningUsher usher;
    static TlsTestServer tls;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("app");
        authelia = servers.track(AutheliaForwardAuthServer.start());
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        String sites = """
                sites:
                  app.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth:
                      url: http://127.0.0.1:%2$d/api/authz/forward-auth
                      copy_headers: [Remote-User, Remote-Groups, Remote-Email, Remote-Name]
                  preset.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "http://127.0.0.1:%2$d", preset: authelia}
                  slow.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "http://127.0.0.1:%2$d/api/authz/forward-auth", timeout: 1s,
                                   copy_headers: [Remote-User]}
                  down.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "http://127.0.0.1:%3$d/api/authz/forward-auth", copy_headers: [Remote-User]}
                  authentik.example.com:
                    to: 127.0.0.1:%1$d
                    forward_auth: {url: "http://127.0.0.1:%2$d", preset: authentik}
                """.formatted(backend.port(), authelia.port(), dead);
        usher = servers.usher(sites);
        tls = servers.track(TlsTestServer.start(sites));
    }

    static RawHttp.Response get(String host, String path, String extraHeaders) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeaders + "\r\n").read();
        }
    }

    @Test
    void aLoggedInUserIsLetThroughWithTheHeadersTheAuthServerGave() throws Exception {
        RawHttp.Response r = get("app.example.com", "/page?x=1",
                "Cookie: authelia_session=alice-session; theme=dark\r\nX-Forwarded-Uri: /forged\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("x-whoami")).isEqualTo("app");
        String seen = r.body();
        assertThat(seen).contains("Remote-User: alice", "Remote-Groups: admins,dev", "Remote-Email: alice@example.com",
                "Remote-Name: Alice Liddell");
        var question = authelia.lastQuestion();
        assertThat(question.getFirst("X-Forwarded-Method")).isEqualTo("GET");
        assertThat(question.getFirst("X-Forwarded-Proto")).isEqualTo("http");
        assertThat(question.getFirst("X-Forwarded-Host")).isEqualTo("app.example.com");
        assertThat(question.getFirst("X-Forwarded-Uri")).as("the client's own copy is replaced").isEqualTo("/page?x=1");
        assertThat(question.getFirst("X-Forwarded-For")).isEqualTo("127.0.0.1");
        assertThat(question.getFirst("Cookie")).contains("authelia_session=alice-session");
    }

    @Test
    void aVisitorWithoutSessionGetsTheLoginRedirectWithItsBodyAndTheBackendIsNotAsked() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response r = get("app.example.com", "/private/doc", "");
        assertThat(r.status()).isEqualTo(302);
        assertThat(r.header("location"))
                .isEqualTo(AutheliaForwardAuthServer.PORTAL + "?rd=http%3A%2F%2Fapp.example.com%2Fprivate%2Fdoc&rm=GET");
        assertThat(r.header("set-cookie")).isEqualTo("authelia_flow=1; Path=/");
        assertThat(r.body()).isEqualTo("<a href=\"" + r.header("location") + "\">302 Found</a>");
        RawHttp.Response xhr = get("app.example.com", "/api", "X-Requested-With: XMLHttpRequest\r\n");
        assertThat(xhr.status()).isEqualTo(401);
        assertThat(xhr.body()).isEqualTo("401 Unauthorized");
        RawHttp.Response forbidden = get("app.example.com", "/admin", "Cookie: authelia_session=bob-session\r\n");
        assertThat(forbidden.status()).isEqualTo(403);
        assertThat(backend.requestsSeen()).isEqualTo(before);
    }

    @Test
    void aPostWithABodyIsAskedAboutAndThenForwardedWhole() throws Exception {
        String body = "a=1&b=" + "x".repeat(5000);
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("POST /echo HTTP/1.1\r\nHost: app.example.com\r\n"
                    + "Cookie: authelia_session=alice-session\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(body);
        }
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("POST /form HTTP/1.1\r\nHost: app.example.com\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body).read();
            assertThat(r.status()).as("Authelia answers other methods with 303").isEqualTo(303);
            assertThat(r.header("location")).endsWith("&rm=POST");
        }
    }

    @Test
    void theClientsOwnIdentityHeadersNeverReachTheBackend() throws Exception {
        // Bob has no groups: Authelia's 200 carries no Remote-Groups, so the client's own must not survive.
        String spoof = "Remote-User: admin\r\nremote-groups: admins\r\nREMOTE-EMAIL: root@example.com\r\n";
        RawHttp.Response r = get("app.example.com", "/", "Cookie: authelia_session=bob-session\r\n" + spoof);
        assertThat(r.status()).isEqualTo(200);
        String seen = r.body().toLowerCase();
        assertThat(seen).contains("remote-user: bob", "remote-email: bob@example.com")
                .doesNotContain("admin", "remote-groups", "root@example.com");
        var question = authelia.lastQuestion();
        assertThat(question.containsKey("Remote-User")).as("nor the auth server").isFalse();
        // The Authorization header reaches the auth server (Authelia's basic-auth flow).
        String basic = Base64.getEncoder().encodeToString("bob:hunter2".getBytes(StandardCharsets.UTF_8));
        RawHttp.Response withBasic = get("app.example.com", "/", "Authorization: Basic " + basic + "\r\n" + spoof);
        assertThat(withBasic.status()).isEqualTo(200);
        assertThat(withBasic.body().toLowerCase()).contains("remote-user: bob").doesNotContain("admin");
    }

    @Test
    void theAutheliaPresetAsksItsEndpointAndCopiesItsHeaders() throws Exception {
        RawHttp.Response r = get("preset.example.com", "/", "Cookie: authelia_session=alice-session\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("Remote-User: alice", "Remote-Groups: admins,dev", "Remote-Name: Alice Liddell");
        assertThat(get("preset.example.com", "/", "").status()).isEqualTo(302);
    }

    @Test
    void theAuthentikPresetSendsTheOutpostPathToTheAuthServerAndCopiesItsHeaders() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response outpost = get("authentik.example.com", "/outpost.goauthentik.io/start?rd=/", "");
        assertThat(outpost.status()).isEqualTo(200);
        assertThat(outpost.body()).isEqualTo("authentik outpost\n");
        assertThat(backend.requestsSeen()).isEqualTo(before);
        RawHttp.Response r = get("authentik.example.com", "/",
                "Cookie: authelia_session=alice-session\r\nX-Authentik-Username: mallory\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("X-Authentik-Username: alice").doesNotContain("mallory");
        assertThat(get("authentik.example.com", "/", "").status()).isEqualTo(302);
    }

    @Test
    void anAuthServerThatIsDownOrSlowLetsNothingThrough() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response down = get("down.example.com", "/", "Cookie: authelia_session=alice-session\r\n");
        assertThat(down.status()).isEqualTo(502);
        authelia.delayMillis = 3000;
        try {
            RawHttp.Response slow = get("slow.example.com", "/", "Cookie: authelia_session=alice-session\r\n");
            assertThat(slow.status()).isEqualTo(504);
        } finally {
            authelia.delayMillis = 0;
        }
        assertThat(backend.requestsSeen()).as("never let through").isEqualTo(before);
        assertThat(get("slow.example.com", "/", "Cookie: authelia_session=alice-session\r\n").status())
                .as("answers again once the server does").isEqualTo(200);
    }

    @Test
    void overHttp2() throws Exception {
        String base = "https://app.example.com:" + tls.port();
        List<String> curl = new ArrayList<>(List.of("curl", "-sk", "--http2", "--max-time", "20", "--resolve",
                "app.example.com:" + tls.port() + ":127.0.0.1", "-D", "-", "-w", "\nversion=%{http_version}\n"));
        List<String> allowed = new ArrayList<>(curl);
        allowed.addAll(List.of("-H", "Cookie: authelia_session=alice-session", "-H", "Remote-User: admin",
                base + "/h2"));
        String ok = Processes.run(allowed);
        assertThat(ok).startsWith("HTTP/2 200").contains("version=2").contains("Remote-User: alice")
                .doesNotContain("Remote-User: admin");
        assertThat(authelia.lastQuestion().getFirst("X-Forwarded-Proto")).isEqualTo("https");
        List<String> anonymous = new ArrayList<>(curl);
        anonymous.add(base + "/h2");
        String login = Processes.run(anonymous);
        assertThat(login).startsWith("HTTP/2 302").containsIgnoringCase("location: " + AutheliaForwardAuthServer.PORTAL)
                .contains("302 Found</a>");
    }
}
