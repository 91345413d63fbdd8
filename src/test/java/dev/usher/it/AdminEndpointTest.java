package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The loopback admin endpoint: health, certificate list, renewal, and refusals for browsers and other hosts. */
class AdminEndpointTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path data;
    static Usher usher;

    @BeforeAll
    static void start() throws Exception {
        usher = servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                sites:
                  app.localhost: 127.0.0.1:9
                """.formatted(data), "admin.yaml"), 1));
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

    @Test
    void withASecretEveryRequestMustCarryItAndAnyHostNameIsServed() throws Exception {
        String hash = org.bouncycastle.crypto.generators.OpenBSDBCrypt.generate("s3cret-token".toCharArray(),
                new byte[16], 4);
        try (Usher guarded = Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: off}
                admin: {listen: "0.0.0.0:0", secret: "%s"}
                sites:
                  app.example.com: 127.0.0.1:9
                """.formatted(hash), "secret.yaml"), 1)) {
            int port = guarded.adminAddress().getPort();
            java.util.function.Function<String, RawHttp.Response> get = extra -> {
                try (RawHttp raw = new RawHttp(port)) {
                    return raw.send("GET /health HTTP/1.1\r\nHost: admin.example.net:2019\r\n" + extra + "\r\n")
                            .read();
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            };
            RawHttp.Response none = get.apply("");
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.headers().get("www-authenticate")).startsWith("Bearer");
            assertThat(get.apply("Authorization: Bearer wrong\r\n").status()).isEqualTo(401);
            assertThat(get.apply("Authorization: Bearer s3cret-token\r\n").status()).isEqualTo(200);
            String basic = java.util.Base64.getEncoder().encodeToString("admin:s3cret-token".getBytes());
            assertThat(get.apply("Authorization: Basic " + basic + "\r\n").status()).isEqualTo(200);
            assertThat(get.apply("Authorization: Bearer s3cret-token\r\nOrigin: http://evil.example\r\n")
                    .status()).as("cross-site, even with the secret").isEqualTo(403);
        }
    }
}
