package dev.usher.admin;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Pebble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DNS provider secrets never leave Usher through the admin endpoint: not in the config it shows, the site list, the
 * certificate states (whose orders fail here: the CA is not reachable), the metrics, nor the backup archive; and a
 * site with DNS-01 settings is shown read-only, so the site form cannot drop them.
 */
class AdminDnsSecretsTest {
    static final String TOKEN = "cf-SECRET-token-7d2c91";
    @TempDir
    Path folder;
    Usher usher;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        Files.writeString(folder.resolve("cf.token"), TOKEN + "\n");
        Path file = Files.writeString(folder.resolve("usher.yaml"), """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: ./data
                acme: {ca: "https://127.0.0.1:%d/dir"}
                sites:
                  "*.lan.example.com":
                    to: 127.0.0.1:9
                    tls: {dns: {provider: cloudflare, token_file: cf.token, api: "http://127.0.0.1:%d/client/v4"}}
                  app.example.com: {to: 127.0.0.1:9, tls: {wildcard: true, dns: {provider: cloudflare, token_file: cf.token}}}
                  plain.localhost: 127.0.0.1:9
                """.formatted(Pebble.freePort(), Pebble.freePort()));
        usher = Usher.start(ConfigLoader.load(file), 1, new Retry(Duration.ofMillis(200), Duration.ofSeconds(1)),
                Duration.ofSeconds(1));
        usher.reloadFrom(file);
    }

    @AfterEach
    void stop() {
        usher.close();
    }

    private String get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + usher.adminAddress().getPort()
                + path)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void noAnswerOfTheAdminEndpointCarriesTheToken() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String certificates = get("/api/certificates");
        while (!certificates.contains("\"failed\"") && System.nanoTime() < deadline) {
            Thread.sleep(100); // the orders fail (no CA there), so their errors show too
            certificates = get("/api/certificates");
        }
        assertThat(certificates).contains("\"failed\"").contains("dns-01: cloudflare");
        String sites = get("/api/sites");
        assertThat(sites).contains("\"name\":\"*.lan.example.com\"").contains("\"name\":\"app.example.com\"");
        for (String answer : new String[] {certificates, sites, get("/api/config"), get("/api/sites/app.example.com"),
                get("/certificates"), get("/metrics")}) {
            assertThat(answer).doesNotContain(TOKEN);
        }
        assertThat(get("/api/config")).contains("token_file: cf.token");
        assertThat(get("/api/sites/app.example.com")).contains("\"editable\":false");
        byte[] backup = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + usher.adminAddress()
                .getPort() + "/api/backup")).GET().build(), HttpResponse.BodyHandlers.ofByteArray()).body();
        String unpacked = new String(new GZIPInputStream(new ByteArrayInputStream(backup)).readAllBytes(),
                StandardCharsets.ISO_8859_1);
        assertThat(unpacked).contains("token_file: cf.token").doesNotContain(TOKEN);
    }
}
