package dev.usher.it;

import dev.usher.testing.AutheliaForwardAuthServer;
import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Forward auth (against {@link AutheliaForwardAuthServer}, which follows Authelia's documented forward-auth
 * contract), a static site and the maintenance page over HTTP/3, with Netty's HTTP/3 client: the same answers as
 * over HTTP/1.1 and HTTP/2.
 */
class SelfHostHttp3Test {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static Usher usher;
    static byte[] big;

    @BeforeAll
    static void start() throws Exception {
        Whoami backend = servers.backend("h3app");
        AutheliaForwardAuthServer authelia = servers.track(AutheliaForwardAuthServer.start());
        Path www = Files.createDirectories(dir.resolve("www"));
        big = new byte[2 << 20];
        new Random(3).nextBytes(big);
        Files.write(www.resolve("big.bin"), big);
        Files.writeString(www.resolve("digits.txt"), "0123456789");
        String yaml = """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: off
                data: %s
                sites:
                  auth.localhost:
                    to: 127.0.0.1:%d
                    forward_auth: {url: "http://127.0.0.1:%d", preset: authelia}
                  files.localhost: {root: %s}
                  down.localhost: {to: "127.0.0.1:%d", maintenance: true}
                """.formatted(dir.resolve("data"), backend.port(), authelia.port(), www, backend.port());
        usher = servers.track(Usher.start(ConfigLoader.parse(yaml, "h3.yaml"), 2));
    }

    static int port() {
        return usher.httpsAddress().getPort();
    }

    @Test
    void forwardAuthOverHttp3() throws Exception {
        try (H3Client client = H3Client.connect(port(), "auth.localhost")) {
            H3Client.Response ok = client.send("GET", "/h3", null, "auth.localhost", "cookie",
                    "authelia_session=alice-session", "remote-user", "admin").get(20, TimeUnit.SECONDS);
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.bodyStart()).contains("Remote-User: alice").doesNotContain("Remote-User: admin");
            H3Client.Response login = client.send("GET", "/h3", null, "auth.localhost").get(20, TimeUnit.SECONDS);
            assertThat(login.status()).isEqualTo(302);
            assertThat(login.headers().get("location").toString()).startsWith(AutheliaForwardAuthServer.PORTAL);
            assertThat(login.bodyStart()).contains("302 Found</a>");
        }
    }

    @Test
    void staticFilesOverHttp3() throws Exception {
        try (H3Client client = H3Client.connect(port(), "files.localhost")) {
            H3Client.Response r = client.send("GET", "/big.bin", null, "files.localhost").get(30, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.bodyLength()).isEqualTo(big.length);
            assertThat(r.bodySha256()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(big)));
            H3Client.Response range = client.send("GET", "/digits.txt", null, "files.localhost", "range",
                    "bytes=2-4").get(20, TimeUnit.SECONDS);
            assertThat(range.status()).isEqualTo(206);
            assertThat(range.bodyStart()).isEqualTo("234");
        }
    }

    @Test
    void theMaintenancePageOverHttp3() throws Exception {
        try (H3Client client = H3Client.connect(port(), "down.localhost")) {
            H3Client.Response r = client.send("GET", "/", null, "down.localhost").get(20, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.headers().get("retry-after").toString()).isEqualTo("300");
        }
    }
}
