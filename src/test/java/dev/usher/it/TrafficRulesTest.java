package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-site options that act on requests and responses, each checked through a real socket, both ways. */
class TrafficRulesTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;
    static String aliceHash;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        aliceHash = OpenBSDBCrypt.generate("2y", "wonderland".toCharArray(), salt, 4);
        String b = "127.0.0.1:" + backend.port();
        usher = servers.usher("""
                trusted_proxies: [127.0.0.2]
                sites:
                  headers.example.com:
                    to: %1$s
                    headers: {X-Frame-Options: DENY, +X-Multi: one, -X-Whoami: ~}
                    request_headers: {X-Env: prod, -Cookie: ~}
                  secure.example.com: {to: %1$s, security_headers: true}
                  www.example.com: {redirect: "https://example.com{uri}"}
                  moved.example.com: {redirect: {to: "https://new.example.com{path}", status: 301}}
                  teapot.example.com: {respond: {status: 418, body: "I'm a teapot\\n"}}
                  gone.example.com: {respond: 410}
                  allowed.example.com: {to: %1$s, allow: [127.0.0.0/8]}
                  notallowed.example.com: {to: %1$s, allow: [10.0.0.0/8]}
                  denied.example.com: {to: %1$s, deny: 127.0.0.1}
                  behindproxy.example.com: {to: %1$s, allow: [203.0.113.0/24]}
                  auth.example.com: {to: %1$s, basic_auth: {alice: "%2$s"}}
                  limited.example.com: {to: %1$s, rate_limit: {requests: 5, per: 1m}}
                """.formatted(b, aliceHash));
    }

    static RawHttp.Response get(String host, String path, String extraHeaders) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + extraHeaders + "\r\n").read();
        }
    }

    @Test
    void responseAndRequestHeaderEdits() throws Exception {
        RawHttp.Response r = get("headers.example.com", "/", "Cookie: secret=1\r\n");
        assertThat(r.header("x-frame-options")).isEqualTo("DENY");
        assertThat(r.header("x-multi")).isEqualTo("one");
        assertThat(r.header("x-whoami")).as("removed by -X-Whoami").isNull();
        String seen = r.body().toLowerCase();
        assertThat(seen).contains("x-env: prod").doesNotContain("secret=1");
    }

    @Test
    void securityHeadersWithoutHstsOverPlainHttp() throws Exception {
        RawHttp.Response r = get("secure.example.com", "/", "");
        assertThat(r.header("x-content-type-options")).isEqualTo("nosniff");
        assertThat(r.header("x-frame-options")).isNotNull();
        assertThat(r.header("referrer-policy")).isNotNull();
        assertThat(r.header("strict-transport-security")).as("HSTS only over HTTPS").isNull();
        assertThat(get("headers.example.com", "/", "").header("x-content-type-options")).isNull();
    }

    @Test
    void redirectsWithPlaceholdersAndStatus() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response r = get("www.example.com", "/a/b?c=1", "");
        assertThat(r.status()).isEqualTo(308);
        assertThat(r.header("location")).isEqualTo("https://example.com/a/b?c=1");
        RawHttp.Response moved = get("moved.example.com", "/x?y=2", "");
        assertThat(moved.status()).isEqualTo(301);
        assertThat(moved.header("location")).isEqualTo("https://new.example.com/x");
        assertThat(backend.requestsSeen()).isEqualTo(before);
    }

    @Test
    void fixedAnswers() throws Exception {
        RawHttp.Response r = get("teapot.example.com", "/", "");
        assertThat(r.status()).isEqualTo(418);
        assertThat(r.body()).isEqualTo("I'm a teapot\n");
        assertThat(get("gone.example.com", "/", "").status()).isEqualTo(410);
    }

    @Test
    void allowAndDenyLists() throws Exception {
        long before = backend.requestsSeen();
        assertThat(get("notallowed.example.com", "/", "").status()).isEqualTo(403);
        assertThat(get("denied.example.com", "/", "").status()).isEqualTo(403);
        assertThat(backend.requestsSeen()).as("refused requests are not forwarded").isEqualTo(before);
        assertThat(get("allowed.example.com", "/", "").status()).isEqualTo(200);
    }

    @Test
    void forwardedForIsBelievedOnlyFromTrustedProxies() throws Exception {
        // 127.0.0.1 is not in trusted_proxies: its X-Forwarded-For is a claim, ignored.
        assertThat(get("behindproxy.example.com", "/", "X-Forwarded-For: 203.0.113.9\r\n").status()).isEqualTo(403);
        // From 127.0.0.2, a trusted proxy, the same header names the client.
        try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", usher.port()));
            s.setSoTimeout(5000);
            s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: behindproxy.example.com\r\n"
                    + "X-Forwarded-For: 203.0.113.9\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String head = WebsocketTest.readHead(s.getInputStream());
            assertThat(head).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void basicAuth() throws Exception {
        long before = backend.requestsSeen();
        RawHttp.Response none = get("auth.example.com", "/", "");
        assertThat(none.status()).isEqualTo(401);
        assertThat(none.header("www-authenticate")).startsWith("Basic realm=");
        String wrong = Base64.getEncoder().encodeToString("alice:queen".getBytes(StandardCharsets.UTF_8));
        assertThat(get("auth.example.com", "/", "Authorization: Basic " + wrong + "\r\n").status()).isEqualTo(401);
        assertThat(backend.requestsSeen()).isEqualTo(before);
        String right = Base64.getEncoder().encodeToString("alice:wonderland".getBytes(StandardCharsets.UTF_8));
        RawHttp.Response ok = get("auth.example.com", "/", "Authorization: Basic " + right + "\r\n");
        assertThat(ok.status()).isEqualTo(200);
        assertThat(get("auth.example.com", "/again", "Authorization: Basic " + right + "\r\n").status())
                .isEqualTo(200);
    }

    @Test
    void rateLimitAnswers429WithRetryAfter() throws Exception {
        int ok = 0;
        RawHttp.Response limited = null;
        for (int i = 0; i < 10 && limited == null; i++) {
            RawHttp.Response r = get("limited.example.com", "/", "");
            if (r.status() == 200) {
                ok++;
            } else {
                limited = r;
            }
        }
        assertThat(ok).isEqualTo(5);
        assertThat(limited).isNotNull();
        assertThat(limited.status()).isEqualTo(429);
        assertThat(Integer.parseInt(limited.header("retry-after"))).isPositive();
        // Other sites are not affected.
        assertThat(get("allowed.example.com", "/", "").status()).isEqualTo(200);
    }
}
