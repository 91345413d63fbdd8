package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Host routing through a real Usher to real whoami backends. */
class RoutingTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami exact;
    static Whoami wildcard;
    static Whoami other;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        exact = servers.backend("exact");
        wildcard = servers.backend("wildcard");
        other = servers.backend("other");
        usher = servers.usher("""
                sites:
                  app.example.com: 127.0.0.1:%d
                  "*.dev.example.com": 127.0.0.1:%d
                  api.dev.example.com: 127.0.0.1:%d
                """.formatted(exact.port(), wildcard.port(), other.port()));
    }

    private RawHttp.Response get(String host, String target) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            return http.send("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
        }
    }

    @Test
    void routesExactNameToItsBackend() throws Exception {
        RawHttp.Response r = get("app.example.com", "/hello?x=1");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("x-whoami")).isEqualTo("exact");
        assertThat(r.body()).contains("GET /hello?x=1 HTTP/1.1").contains("Host: app.example.com");
    }

    @Test
    void matchesCaseInsensitivelyAndIgnoresThePortAndTrailingDot() throws Exception {
        assertThat(get("APP.Example.COM:8080", "/").header("x-whoami")).isEqualTo("exact");
        assertThat(get("app.example.com.", "/").header("x-whoami")).isEqualTo("exact");
    }

    @Test
    void wildcardMatchesExactlyOneLabelAndExactNamesWin() throws Exception {
        assertThat(get("web.dev.example.com", "/").header("x-whoami")).isEqualTo("wildcard");
        assertThat(get("api.dev.example.com", "/").header("x-whoami")).isEqualTo("other");
        assertThat(get("a.b.dev.example.com", "/").status()).isEqualTo(404);
        assertThat(get("dev.example.com", "/").status()).isEqualTo(404);
    }

    @Test
    void unknownHostGets404AndNothingIsForwarded() throws Exception {
        long before = exact.requestsSeen() + wildcard.requestsSeen() + other.requestsSeen();
        RawHttp.Response r = get("evil.example.org", "/");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.body()).contains("No site is configured").doesNotContain("127.0.0.1");
        assertThat(exact.requestsSeen() + wildcard.requestsSeen() + other.requestsSeen()).isEqualTo(before);
    }

    @Test
    void absoluteFormUriForAnotherHostIsNotProxied() throws Exception {
        long before = exact.requestsSeen();
        // An open proxy would fetch this; Usher routes by the URI's authority and knows no such site.
        RawHttp.Response r = get("app.example.com", "http://169.254.169.254/latest/meta-data/");
        assertThat(r.status()).isEqualTo(404);
        assertThat(exact.requestsSeen()).isEqualTo(before);
    }

    @Test
    void absoluteFormUriForAKnownSiteIsServedInOriginForm() throws Exception {
        RawHttp.Response r = get("ignored.example.org", "http://app.example.com/path?q=1");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("GET /path?q=1 HTTP/1.1").containsIgnoringCase("host: app.example.com\n");
    }

    @Test
    void connectMethodIsRefused() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("CONNECT app.example.com:443 HTTP/1.1\r\nHost: app.example.com:443\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(405);
        }
    }
}
