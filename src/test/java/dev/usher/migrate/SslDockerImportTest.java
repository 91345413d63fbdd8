package dev.usher.migrate;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code usher import ssldocker}: the README's example config, and Go autocert's certificate folder. */
class SslDockerImportTest {
    static final Path README_EXAMPLE = Path.of("src/test/resources/migrate/ssldocker/conf.json");

    @TempDir
    Path dir;

    @Test
    void theReadmeExampleBecomesOneLinePerSiteAndTheHttpsBackendIsListed() throws Exception {
        Path out = dir.resolve("usher.yaml");
        Importer.Outcome o = Importer.run(SslDockerImport.read(README_EXAMPLE, dir.resolve("no-certs")),
                options(out, false));
        assertThat(o.yaml()).contains("email: yourmail@domain.com\n")
                .contains("  app1.com: localhost:8082  # from SSLDocker ProxyItems[0]\n")
                .contains("  app2.com: localhost:8083  # from SSLDocker ProxyItems[1]\n")
                .contains("  app3.com: domain.com:80  # from SSLDocker ProxyItems[2]\n")
                .doesNotContain("app4.com:");
        assertThat(o.findings()).extracting(Finding::line).anySatisfy(l -> assertThat(l)
                .startsWith("conf.json, ProxyItems[3]: app4.com → https://ssldomain.com: the backend is spoken to "
                        + "over HTTPS"));
        assertThat(o.findings()).extracting(Finding::what).contains("\"MaxHeader\": 10");
        assertThat(o.yaml()).contains("# Not converted:\n#   conf.json, ProxyItems[3]: app4.com");
        UsherConfig loaded = ConfigLoader.load(out);
        assertThat(loaded.sites()).extracting(s -> s.name()).containsExactly("app1.com", "app2.com", "app3.com");
        assertThat(o.toOrder()).containsExactly("app1.com", "app2.com", "app3.com");
    }

    @Test
    void autocertEntriesAreStoredAndTheAccountKeyExpiredAndMismatchedOnesAreNot() throws Exception {
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCerts.Pair ec = TestCerts.fresh("app1.com");
        TestCerts.Pair rsa = TestCerts.make(Duration.ofDays(2), Duration.ofDays(60), true, "app2.com");
        TestCerts.Pair expired = TestCerts.make(Duration.ofDays(100), Duration.ofDays(-10), "app3.com");
        Files.writeString(certs.resolve("app1.com"), ec.keyPem() + ec.certPem());
        Files.writeString(certs.resolve("app2.com+rsa"), rsa.keyPem() + rsa.certPem());
        Files.writeString(certs.resolve("app3.com"), expired.keyPem() + expired.certPem());
        TestCerts.Pair wrong = TestCerts.fresh("app4.com").withWrongKey();
        Files.writeString(certs.resolve("app4.com"), wrong.keyPem() + wrong.certPem());
        Files.writeString(certs.resolve("acme_account+key"), ec.keyPem());
        Files.writeString(certs.resolve("app1.com+token"), "token");
        Path conf = Files.writeString(dir.resolve("conf.json"), """
                {"GzipOn": false, "Http2https": false, "Certs": "certs", "ProxyItems": [
                  {"Host": "app1.com", "Target": "http://127.0.0.1:9001"},
                  {"Host": "app2.com", "Target": "http://127.0.0.1:9002"},
                  {"Host": "app3.com", "Target": "127.0.0.1:9003"},
                  {"Host": "app4.com", "Target": "http://127.0.0.1:9004"},
                  {"Host": "app4.com", "Target": "http://127.0.0.1:9005"}]}
                """);
        Path data = dir.resolve("data");
        Importer.Outcome o = Importer.run(SslDockerImport.read(conf, null), options(dir.resolve("usher.yaml"), false,
                data));
        assertThat(o.stored()).containsExactly("app1.com", "app2.com");
        assertThat(o.toOrder()).containsExactly("app3.com", "app4.com");
        assertThat(o.findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).contains("app3.com").contains("expired on"))
                .anySatisfy(l -> assertThat(l).contains("certificate for app4.com")
                        .contains("does not belong to the first certificate"))
                .anySatisfy(l -> assertThat(l).contains("\"Http2https\": false"))
                .anySatisfy(l -> assertThat(l).contains("app4.com: listed more than once"));
        assertThat(o.yaml()).contains("    to: 127.0.0.1:9001\n    gzip: false\n")
                .contains("    to: [\"127.0.0.1:9004\", \"127.0.0.1:9005\"]\n");
        String issuer = "acme-v02.api.letsencrypt.org-directory";
        Path stored = data.resolve("certificates").resolve(issuer).resolve("app1.com");
        assertThat(Files.readString(stored.resolve("meta.json"))).contains(ec.sha256());
        assertThat(Files.getPosixFilePermissions(stored.resolve("key.pem")).toString()).isEqualTo(
                "[OWNER_READ, OWNER_WRITE]");
        assertThat(Files.readString(data.resolve("certificates").resolve(issuer).resolve("app2.com")
                .resolve("meta.json"))).contains(rsa.sha256());
        assertThat(data.resolve("certificates").resolve(issuer).resolve("app3.com")).doesNotExist();
        assertThat(data.resolve("certificates").resolve(issuer).resolve("app4.com")).doesNotExist();
    }

    static Importer.Options options(Path out, boolean dryRun) {
        return options(out, dryRun, out.resolveSibling("data"));
    }

    static Importer.Options options(Path out, boolean dryRun, Path data) {
        return new Importer.Options(out, data, null, null, dryRun, false, false);
    }
}
