package dev.usher.migrate;

import dev.usher.config.ConfigLoader;
import dev.usher.config.Site;
import dev.usher.config.StreamSetting;
import dev.usher.config.UsherConfig;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static dev.usher.migrate.NpmFixture.names;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher import npm} on a database made from NPM's own schema, holding the awkward cases: several names per
 * host, a unicode name, a wildcard, a disabled host, a deleted one, an HTTPS backend, custom locations and nginx
 * snippets, an access list with users and address rules, Let's Encrypt certificates (one expired, one whose key is
 * another's), uploaded ones (as files, and only in the database), redirection and 404 hosts, a stream.
 */
class NpmImportTest {
    @TempDir
    Path dir;
    Path data;
    Path letsencrypt;
    TestCerts.Pair app;
    TestCerts.Pair wild;
    TestCerts.Pair custom;
    TestCerts.Pair inDatabase;

    @BeforeEach
    void fixture() throws Exception {
        data = dir.resolve("npm/data");
        letsencrypt = dir.resolve("npm/letsencrypt");
        app = TestCerts.fresh("app.example.com", "www.app.example.com");
        wild = TestCerts.fresh("*.wild.example.com");
        custom = TestCerts.make(Duration.ofDays(10), Duration.ofDays(3650), "custom.example.com");
        inDatabase = TestCerts.fresh("meta.example.com");
        try (NpmFixture npm = NpmFixture.create(data)) {
            npm.insert("certificate", Map.of("provider", "letsencrypt", "domain_names",
                    names("app.example.com", "www.app.example.com"), "expires_on", "2027-01-01 00:00:00", "meta",
                    "{\"letsencrypt_email\":\"ops@example.com\",\"letsencrypt_agree\":true,\"dns_challenge\":false}"));
            npm.insert("certificate", Map.of("provider", "letsencrypt", "domain_names", names("*.wild.example.com"),
                    "expires_on", "2027-01-01 00:00:00", "meta", "{\"dns_challenge\":true}"));
            npm.insert("certificate", Map.of("provider", "other", "nice_name", "origin cert", "domain_names",
                    names("custom.example.com"), "expires_on", "2036-01-01 00:00:00"));
            npm.insert("certificate", Map.of("provider", "letsencrypt", "domain_names", names("expired.example.com"),
                    "expires_on", "2026-01-01 00:00:00"));
            npm.insert("certificate", Map.of("provider", "letsencrypt", "domain_names", names("mismatch.example.com"),
                    "expires_on", "2027-01-01 00:00:00"));
            npm.insert("certificate", Map.of("provider", "other", "domain_names", names("meta.example.com"),
                    "expires_on", "2027-01-01 00:00:00", "meta", "{\"certificate\":" + json(inDatabase.certPem())
                            + ",\"certificate_key\":" + json(inDatabase.keyPem()) + "}"));
            npm.insert("certificate", Map.of("provider", "letsencrypt", "domain_names", names("*.gone.example.com"),
                    "expires_on", "2027-01-01 00:00:00"));
            npm.letsencrypt(letsencrypt, 1, app);
            npm.letsencrypt(letsencrypt, 2, wild);
            npm.customSsl(3, custom);
            npm.letsencrypt(letsencrypt, 4, TestCerts.make(Duration.ofDays(100), Duration.ofDays(-10),
                    "expired.example.com"));
            npm.letsencrypt(letsencrypt, 5, TestCerts.fresh("mismatch.example.com").withWrongKey());

            int list = npm.insert("access_list", Map.of("name", "office", "satisfy_any", 0, "pass_auth", 0));
            npm.insert("access_list_auth", Map.of("access_list_id", list, "username", "alice", "password", "s3cret"));
            npm.insert("access_list_auth", Map.of("access_list_id", list, "username", "bob", "password", ""));
            npm.insert("access_list_client", Map.of("access_list_id", list, "address", "10.0.0.0/8",
                    "directive", "allow"));
            npm.insert("access_list_client", Map.of("access_list_id", list, "address", "10.1.0.0/16",
                    "directive", "deny"));

            host(npm, Map.of("domain_names", names("app.example.com", "www.app.example.com"), "forward_host", "app",
                    "forward_port", 8080, "certificate_id", 1, "ssl_forced", 1, "hsts_enabled", 1,
                    "hsts_subdomains", 1, "allow_websocket_upgrade", 1, "http2_support", 1));
            host(npm, Map.of("domain_names", names("bücher.example.com"), "forward_host", "books", "forward_port", 80));
            host(npm, Map.of("domain_names", names("disabled.example.com"), "forward_host", "off", "forward_port", 80,
                    "enabled", 0));
            host(npm, Map.of("domain_names", names("*.wild.example.com"), "forward_host", "wild", "forward_port", 80,
                    "certificate_id", 2, "ssl_forced", 1));
            host(npm, Map.of("domain_names", names("notes.example.com"), "forward_host", "notes", "forward_port", 80,
                    "caching_enabled", 1, "block_exploits", 1, "advanced_config", "client_max_body_size 0;\n"
                            + "proxy_read_timeout 300;", "locations",
                    "[{\"path\":\"/api\",\"forward_scheme\":\"http\",\"forward_host\":\"api\",\"forward_port\":9000}]"));
            host(npm, Map.of("domain_names", names("secure-backend.example.com"), "forward_scheme", "https",
                    "forward_host", "tls-app", "forward_port", 8443));
            host(npm, Map.of("domain_names", names("private.example.com"), "forward_host", "intranet",
                    "forward_port", 80, "access_list_id", list));
            host(npm, Map.of("domain_names", names("custom.example.com"), "forward_host", "c", "forward_port", 80,
                    "certificate_id", 3, "ssl_forced", 1));
            host(npm, Map.of("domain_names", names("expired.example.com"), "forward_host", "e", "forward_port", 80,
                    "certificate_id", 4, "ssl_forced", 1));
            host(npm, Map.of("domain_names", names("mismatch.example.com"), "forward_host", "m", "forward_port", 80,
                    "certificate_id", 5, "ssl_forced", 1));
            host(npm, Map.of("domain_names", names("deleted.example.com"), "forward_host", "d", "forward_port", 80,
                    "is_deleted", 1));
            host(npm, Map.of("domain_names", names("meta.example.com"), "forward_host", "meta", "forward_port", 80,
                    "certificate_id", 6, "ssl_forced", 1));
            host(npm, Map.of("domain_names", names("*.gone.example.com"), "forward_host", "g", "forward_port", 80,
                    "certificate_id", 7, "ssl_forced", 1));
            npm.insert("redirection_host", Map.of("domain_names", names("old.example.com"), "forward_domain_name",
                    "new.example.com", "preserve_path", 1, "forward_http_code", 301));
            npm.insert("dead_host", Map.of("domain_names", names("gone.example.com")));
            npm.insert("stream", Map.of("incoming_port", 2222, "forwarding_host", "git", "forwarding_port", 22,
                    "tcp_forwarding", 1));
            npm.insert("stream", Map.of("incoming_port", 27015, "forwarding_host", "game", "forwarding_port", 27015,
                    "tcp_forwarding", 1, "udp_forwarding", 1));
            npm.insert("stream", Map.of("incoming_port", 80, "forwarding_host", "web", "forwarding_port", 8080,
                    "tcp_forwarding", 1)); // Usher's own HTTP port: refused by the loader, listed
            npm.insert("stream", Map.of("incoming_port", 5353, "forwarding_host", "dns", "forwarding_port", 53,
                    "tcp_forwarding", 0, "udp_forwarding", 0));
            npm.insert("setting", Map.of("id", "default-site", "name", "Default Site", "description", "",
                    "value", "redirect", "meta", "{\"redirect\":\"https://example.com\"}"));
        }
    }

    private static void host(NpmFixture npm, Map<String, Object> columns) throws Exception {
        npm.insert("proxy_host", columns);
    }

    private static String json(String s) {
        return dev.usher.json.JsonText.quote(s);
    }

    @Test
    void everyKindOfRowIsConvertedOrListedAndTheFileLoads() throws Exception {
        byte[] before = Files.readAllBytes(data.resolve("database.sqlite"));
        Path out = dir.resolve("usher.yaml");
        Path usherData = dir.resolve("usher-data");
        Importer.Outcome o = Importer.run(NpmImport.read(data, null),
                new Importer.Options(out, usherData, null, null, false, false, false));
        String yaml = o.yaml();
        assertThat(yaml).contains("email: ops@example.com\n")
                .contains("  app.example.com:  # from NPM proxy_host 1\n    to: app:8080\n"
                        + "    headers: {Strict-Transport-Security: \"max-age=63072000; includeSubDomains; preload\"}\n")
                .contains("  www.app.example.com:  # from NPM proxy_host 1\n")
                .contains("  http://xn--bcher-kva.example.com: books:80  # from NPM proxy_host 2, written there as "
                        + "bücher.example.com\n")
                .contains("  # http://disabled.example.com: off:80  # from NPM proxy_host 3; not active: disabled in "
                        + "NPM\n")
                .contains("  \"*.wild.example.com\":  # from NPM proxy_host 4\n    to: wild:80\n    tls: {cert: \""
                        + usherData.resolve("imported/wildcard_.wild.example.com/cert.pem") + "\"")
                .contains("  http://notes.example.com: notes:80  # from NPM proxy_host 5\n")
                .contains("  # http://secure-backend.example.com: tls-app:8443  # from NPM proxy_host 6; not active: "
                        + "the backend is spoken to over HTTPS")
                .contains("  http://old.example.com: {redirect: {to: \"{scheme}://new.example.com{uri}\", status: 301}}"
                        + "  # from NPM redirection_host 1\n")
                .contains("  http://gone.example.com: {respond: 404}  # from NPM dead_host 1\n")
                .contains("  # \"*.gone.example.com\": g:80  # from NPM proxy_host 13; not active: no certificate\n")
                .contains("\nstreams:\n  \":2222\": git:22  # from NPM stream 1\n"
                        + "  \":27015\": game:27015  # from NPM stream 2\n"
                        + "  \":27015/udp\": game:27015  # from NPM stream 2\n")
                .doesNotContain("\":80\": web:8080")
                .doesNotContain("deleted.example.com");
        assertThat(yaml).containsPattern("  http://private.example.com:  # from NPM proxy_host 7\n    to: intranet:80\n"
                + "    request_headers: \\{\"-Authorization\": ~\\}\n    basic_auth: \\{alice: \"\\$2y\\$12\\$[./A-Za-z0-9]{53}\"\\}\n"
                + "    allow: \\[\"10.0.0.0/8\"\\]\n    deny: \\[\"10.1.0.0/16\"\\]\n");
        assertThat(o.stored()).containsExactly("app.example.com", "www.app.example.com");
        assertThat(o.copied()).containsExactlyInAnyOrder("wildcard_.wild.example.com", "custom.example.com",
                "meta.example.com");
        assertThat(o.toOrder()).containsExactlyInAnyOrder("expired.example.com", "mismatch.example.com");
        assertThat(o.findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).startsWith("database.sqlite, proxy_host 5: Cache Assets: "))
                .anySatisfy(l -> assertThat(l).startsWith("database.sqlite, proxy_host 5: Block Common Exploits: "))
                .anySatisfy(l -> assertThat(l).startsWith("database.sqlite, proxy_host 5: advanced_config (2 line(s) "
                        + "of nginx directives)"))
                .anySatisfy(l -> assertThat(l).startsWith("database.sqlite, proxy_host 5: custom location /api → api:"
                        + "9000: usher import does not convert custom locations yet"))
                .anySatisfy(l -> assertThat(l).contains("proxy_host 7: access list 1 (office): user bob: no password"))
                .anySatisfy(l -> assertThat(l).contains("proxy_host 7: access list 1 (office): deny 10.1.0.0/16 comes "
                        + "after an allow"))
                .anySatisfy(l -> assertThat(l).contains("certificate 4: certificate for expired.example.com: not "
                        + "imported: it expired on"))
                .anySatisfy(l -> assertThat(l).contains("certificate 5: certificate for mismatch.example.com: not "
                        + "imported:").contains("does not belong"))
                .anySatisfy(l -> assertThat(l).contains("certificate 7: certificate npm-7 for *.gone.example.com: no "))
                .anySatisfy(l -> assertThat(l).contains("stream 3: stream :80 → web:8080: usher check refuses it: "
                        + "port 80/tcp is already Usher's listen.http"))
                .anySatisfy(l -> assertThat(l).contains("stream 4: stream :5353 → dns:53: neither TCP nor UDP"))
                .anySatisfy(l -> assertThat(l).contains("setting default-site: default site: redirect"))
                .anySatisfy(l -> assertThat(l).contains("proxy_host 3: disabled.example.com: disabled in NPM"));

        UsherConfig loaded = ConfigLoader.load(out);
        assertThat(loaded.sites()).extracting(Site::name).contains("app.example.com", "xn--bcher-kva.example.com",
                "*.wild.example.com", "private.example.com", "old.example.com", "gone.example.com")
                .doesNotContain("disabled.example.com", "secure-backend.example.com", "*.gone.example.com");
        assertThat(loaded.streams()).extracting(StreamSetting::name).containsExactly(":2222", ":27015", ":27015/udp");
        String hash = loaded.sites().stream().filter(s -> s.name().equals("private.example.com")).findFirst()
                .orElseThrow().traffic().access().basicAuth().get("alice");
        assertThat(OpenBSDBCrypt.checkPassword(hash, "s3cret".toCharArray())).isTrue();
        assertThat(Files.readString(usherData.resolve("imported/custom.example.com/cert.pem")))
                .isEqualTo(dev.usher.cert.Pem.certificates(List.of(custom.cert())));
        assertThat(Files.getPosixFilePermissions(usherData.resolve("imported/custom.example.com/key.pem")))
                .hasSize(2);
        assertThat(sha(Files.readAllBytes(data.resolve("database.sqlite")))).as("NPM's database is left as it was")
                .isEqualTo(sha(before));
    }

    @Test
    void anExistingFileIsNeverReplacedWithoutForceAndIsKeptAsABackup() throws Exception {
        Path out = Files.writeString(dir.resolve("usher.yaml"), "sites:\n  mine.example.com: mine:80\n");
        Importer.Options plain = new Importer.Options(out, dir.resolve("d"), null, null, false, false, false);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> Importer.run(NpmImport.read(data, null),
                plain))).isInstanceOf(ImportException.class).hasMessageContaining("exists already; give --force");
        assertThat(Files.readString(out)).isEqualTo("sites:\n  mine.example.com: mine:80\n");
        Importer.Outcome o = Importer.run(NpmImport.read(data, null),
                new Importer.Options(out, dir.resolve("d"), null, null, false, true, false));
        assertThat(o.backup()).isNotNull();
        assertThat(Files.readString(o.backup())).isEqualTo("sites:\n  mine.example.com: mine:80\n");
        assertThat(Files.readString(out)).contains("# from NPM proxy_host 1");
    }

    @Test
    void strictAndDryRunWriteNothing() throws Exception {
        Path out = dir.resolve("usher.yaml");
        Path usherData = dir.resolve("d");
        Importer.Outcome strict = Importer.run(NpmImport.read(data, null),
                new Importer.Options(out, usherData, null, null, false, false, true));
        assertThat(strict.written()).isFalse();
        assertThat(strict.skippedAny()).isTrue();
        Importer.Outcome dry = Importer.run(NpmImport.read(data.resolve("database.sqlite"), letsencrypt),
                new Importer.Options(out, usherData, null, null, true, false, false));
        assertThat(dry.written()).isFalse();
        assertThat(dry.yaml()).contains("app.example.com");
        assertThat(out).doesNotExist();
        assertThat(usherData).doesNotExist();
    }

    private static String sha(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
