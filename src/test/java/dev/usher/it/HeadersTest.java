package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** What the backend sees: hop-by-hop headers gone, forwarding headers set, Host untouched. */
class HeadersTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("sites:\n  app.example.com: 127.0.0.1:" + backend.port() + "\n");
    }

    @Test
    void removesHopByHopHeadersIncludingThoseNamedInConnection() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            String seen = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\nConnection: keep-alive, X-Secret\r\n"
                    + "X-Secret: s3cr3t\r\nKeep-Alive: timeout=5\r\nTE: deflate\r\nProxy-Connection: keep-alive\r\n"
                    + "Proxy-Authorization: Basic Zm9vOmJhcg==\r\nX-Kept: yes\r\n\r\n").read().body();
            assertThat(seen).contains("X-Kept: yes");
            assertThat(seen.toLowerCase()).doesNotContain("x-secret").doesNotContain("keep-alive: timeout")
                    .doesNotContain("\nte:").doesNotContain("proxy-connection").doesNotContain("proxy-authorization");
        }
    }

    @Test
    void teTrailersIsPassedOnAloneSinceUsherRelaysTrailers() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            String seen = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\nTE: deflate;q=0.5, trailers\r\n\r\n")
                    .read().body().toLowerCase();
            assertThat(seen).contains("\nte: trailers\n").doesNotContain("deflate");
        }
    }

    @Test
    void setsForwardingHeadersAndReplacesClientClaims() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            String seen = http.send("GET / HTTP/1.1\r\nHost: app.example.com:8080\r\nX-Forwarded-For: 6.6.6.6\r\n"
                    + "X-Real-IP: 6.6.6.6\r\n\r\n").read().body().toLowerCase();
            assertThat(seen).contains("host: app.example.com:8080")
                    .contains("x-forwarded-for: 127.0.0.1")
                    .contains("x-real-ip: 127.0.0.1")
                    .contains("x-forwarded-proto: http")
                    .contains("x-forwarded-host: app.example.com:8080")
                    .doesNotContain("6.6.6.6");
        }
    }

    @Test
    void headResponseHasHeadersButNoBody() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response head = http.send("HEAD / HTTP/1.1\r\nHost: app.example.com\r\n\r\n")
                    .expectHeadResponse().read();
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            // The connection is still in step: the next response is the GET's, not a stray HEAD body.
            RawHttp.Response get = http.send("GET /after-head HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
            assertThat(get.body()).contains("GET /after-head");
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            http.send("GET /one HTTP/1.1\r\nHost: app.example.com\r\n\r\n"
                    + "GET /two HTTP/1.1\r\nHost: app.example.com\r\n\r\n"
                    + "GET /three HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
            assertThat(http.read().body()).contains("GET /one ");
            assertThat(http.read().body()).contains("GET /two ");
            assertThat(http.read().body()).contains("GET /three ");
        }
    }

    @Test
    void http10ClientGetsAnAnswerAndTheConnectionCloses() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET /old HTTP/1.0\r\nHost: app.example.com\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("GET /old HTTP/1.1");
            assertThat(http.closedByServer()).isTrue();
        }
    }

    @Test
    void http10KeepAliveClientKeepsItsConnectionAndGetsNoChunking() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            String body = "x".repeat(1000);
            // /echo answers chunked when it can; an HTTP/1.0 client must get a body it can read.
            RawHttp.Response r = http.send("POST /echo HTTP/1.0\r\nHost: app.example.com\r\nConnection: keep-alive\r\n"
                    + "Content-Length: 1000\r\n\r\n" + body).read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("transfer-encoding")).isNull();
            assertThat(r.body()).isEqualTo(body);
        }
    }
}
