package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The loopback admin endpoint: health, certificate list, renewal, and refusals for browsers and other hosts. */
class AdminEndpointTest {
    @TempDir
    static Path data;
    static Usher usher;

    @BeforeAll
    static void start() throws Exception {
        usher = Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                sites:
                  app.localhost: 127.0.0.1:9
                """.formatted(data), "admin.yaml"), 1);
    }

    @AfterAll
    static void stop() {
        usher.close();
    }

    private static RawHttp.Response send(String request) throws Exception {
        try (RawHttp raw = new RawHttp(usher.adminAddress().getPort())) {
            return raw.send(request).read();
        }
    }

    @Test
    void answersHealthAndListsCertificates() throws Exception {
        RawHttp.Response health = send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"ok\"");
        RawHttp.Response list = send("GET /certificates HTTP/1.1\r\nHost: localhost:2019\r\n\r\n");
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.headers().get("content-type")).isEqualTo("application/json");
        assertThat(list.body()).contains("\"name\":\"app.localhost\"").contains("\"issuer\":\"local\"")
                .contains("\"sha256\":\"" + usher.certificates().certificateFor("app.localhost").sha256() + "\"");
    }

    @Test
    void renewsALocalCertificate() throws Exception {
        String before = usher.certificates().certificateFor("app.localhost").sha256();
        RawHttp.Response r = send("POST /certificates/app.localhost/renew HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Length: 0\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        String after = usher.certificates().certificateFor("app.localhost").sha256();
        assertThat(after).isNotEqualTo(before);
        assertThat(r.body()).contains(after);
    }

    @Test
    void refusesOtherHostNamesAgainstDnsRebinding() throws Exception {
        RawHttp.Response r = send("GET /certificates HTTP/1.1\r\nHost: evil.example.com\r\n\r\n");
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.body()).doesNotContain("app.localhost");
    }

    @Test
    void refusesWritesFromAnyOtherOriginEvenOnLocalhost() throws Exception {
        String before = usher.certificates().certificateFor("app.localhost").sha256();
        RawHttp.Response r = send("POST /certificates/app.localhost/renew HTTP/1.1\r\nHost: 127.0.0.1:2019\r\n"
                + "Origin: http://localhost:3000\r\nContent-Length: 0\r\n\r\n");
        assertThat(r.status()).isEqualTo(403);
        assertThat(usher.certificates().certificateFor("app.localhost").sha256()).isEqualTo(before);
    }

    @Test
    void answersUnknownAndMalformedPathsWith404() throws Exception {
        assertThat(send("POST /certificates/renew HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
                .status()).isEqualTo(404);
        RawHttp.Response unknown = send("POST /certificates/nope.localhost/renew HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Length: 0\r\n\r\n");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.body()).contains("no HTTPS site named nope.localhost");
        assertThat(send("GET /renew HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").status()).isEqualTo(404);
    }
}
