package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertManager;
import dev.usher.cert.CertStore;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.LocalCa;
import dev.usher.cli.Cli;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher storage copy}: a single node's certificates go into the fleet's Redis (and back) without any order; a
 * node with an empty data directory then serves them from Redis at once. The CA named in the config is not even
 * running: an order would fail.
 */
class StorageCopyTest {
    @RegisterExtension
    static final Servers servers = new Servers();
    private static final String NAME = "copied.example.com";
    private static final URI DEAD_CA = URI.create("https://localhost:1/dir");

    @TempDir
    Path work;

    private String config(RedisServer redis, Path data, int http, int https) {
        return """
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                http3: false
                admin: false
                data: %s
                acme: {ca: "%s"}
                storage: {redis: "%s", encryption_key_file: "%s", node: copier}
                sites:
                  %s: 127.0.0.1:9
                """.formatted(http, https, data, DEAD_CA, redis.uri(), work.resolve("storage.key"), NAME);
    }

    private String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Cli(new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8),
                err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void copiesANodesCertificatesIntoRedisAndBackWithoutOrdering() throws Exception {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        Files.writeString(work.resolve("storage.key"), HexFormat.of().formatHex(key));
        String issuer = CertManager.acmeIssuerId(DEAD_CA);
        Path alone = work.resolve("alone");
        CertifiedKey cert = LocalCa.open(new CertStore(work.resolve("some-ca"))).issue(NAME);
        new CertStore(alone).save(issuer, NAME, cert);

        try (RedisServer redis = RedisServer.start(work.resolve("redis"))) {
            Path file = work.resolve("usher.yaml");
            Files.writeString(file, config(redis, alone, 0, 0));
            String[] first = run("storage", "copy", "--from", "data", "--to", "redis", "--config", file.toString());
            assertThat(first[0]).as(first[2]).isEqualTo("0");
            assertThat(first[1]).contains("1 certificate(s) copied to Redis at 127.0.0.1:" + redis.port());
            String[] again = run("storage", "copy", "--from", "data", "--to", "redis", "--config", file.toString());
            assertThat(again[1]).contains("0 certificate(s) copied").contains("1 left as they were");
            assertThat(redis.cli("HGET", "usher:cert:" + issuer + ":" + NAME, "sha256")).isEqualTo(cert.sha256());

            // A node with an empty data directory serves the copy from Redis, with its CA unreachable
            int https = dev.usher.testing.Pebble.freePort();
            Usher usher = servers.track(Usher.start(ConfigLoader.parse(config(redis, work.resolve("empty"),
                    dev.usher.testing.Pebble.freePort(), https), file.toString()), 1));
            assertThat(usher.certificates().certificateFor(NAME).sha256()).isEqualTo(cert.sha256());
            assertThat(TlsProbe.leafSha256(https, NAME)).isEqualTo(cert.sha256());

            Path back = work.resolve("back");
            Files.writeString(file, config(redis, back, 0, 0));
            String[] down = run("storage", "copy", "--from", "redis", "--to", "data", "--config", file.toString());
            assertThat(down[0]).as(down[2]).isEqualTo("0");
            assertThat(down[1]).contains("1 certificate(s) copied to " + back);
            assertThat(new CertStore(back).load(issuer, NAME).orElseThrow().sha256()).isEqualTo(cert.sha256());
        }
    }

    @Test
    void refusesAConfigWithoutStorageAndAWrongDirection() throws Exception {
        Path file = work.resolve("plain.yaml");
        Files.writeString(file, "sites: {app.example.com: 127.0.0.1:9}\n");
        String[] none = run("storage", "copy", "--from", "data", "--to", "redis", "--config", file.toString());
        assertThat(none[0]).isEqualTo("1");
        assertThat(none[2]).contains("has no storage: section");
        String[] wrong = run("storage", "copy", "--from", "data", "--to", "data");
        assertThat(wrong[0]).isEqualTo("2");
        assertThat(wrong[2]).contains("usage: usher storage copy --from data --to redis");
    }
}
