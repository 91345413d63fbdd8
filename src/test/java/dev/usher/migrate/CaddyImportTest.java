package dev.usher.migrate;

import dev.usher.config.ConfigLoader;
import dev.usher.config.Site;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher import caddy}: Caddy's own adapter-test Caddyfiles each convert into a file that loads, with what
 * they use and Usher lacks listed; a Caddyfile with the common subset converts exactly; Caddy's data folder
 * certificates are stored.
 */
class CaddyImportTest {
    static final Path CADDYTEST = Path.of("src/test/resources/migrate/caddy/caddytest");
    static final Map<String, String> NO_ENV = Map.of();

    @TempDir
    Path dir;

    static Stream<Path> caddytestFiles() throws IOException {
        try (Stream<Path> files = Files.list(CADDYTEST)) {
            return files.filter(p -> p.toString().endsWith(".caddyfile")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("caddytestFiles")
    void everyCaddytestFixtureConvertsIntoAFileThatLoads(Path caddyfile) throws Exception {
        Importer.Outcome o = run(caddyfile);
        ConfigLoader.load(dir.resolve("usher.yaml"));
        assertThat(o.yaml()).startsWith("# Imported from Caddyfile ");
    }

    @Test
    void caddytestFixturesSayWhatTheyLose() throws Exception {
        assertThat(run(CADDYTEST.resolve("header.caddyfile")).findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).startsWith("header.caddyfile, line 1: site address :80: a site for "
                        + "every name"));
        Importer.Outcome snippet = run(CADDYTEST.resolve("import_args_snippet.caddyfile"));
        assertThat(snippet.yaml()).contains("  a.example.com:  # from Caddyfile line 7\n    respond: 200\n"
                + "    access_log: true\n").contains("  b.example.com:  # from Caddyfile line 11\n");
        Importer.Outcome internal = run(CADDYTEST.resolve("tls_internal_options.caddyfile"));
        assertThat(internal.yaml()).contains("  a.example.com:  # from Caddyfile line 1\n    respond: 200\n"
                + "    tls: internal\n");
        assertThat(internal.findings()).extracting(Finding::what).contains("tls issuer internal ca foo",
                "tls issuer internal lifetime 24h");
        Importer.Outcome wildcard = run(CADDYTEST.resolve("wildcard_pattern.caddyfile"));
        assertThat(wildcard.findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).contains("tls dns mock: usher import does not convert DNS providers"))
                .anySatisfy(l -> assertThat(l).contains("handle @foo"))
                .anySatisfy(l -> assertThat(l).contains("site *.example.com: its handler abort has no counterpart"));
        Importer.Outcome global = run(CADDYTEST.resolve("global_options_acme.caddyfile"));
        assertThat(global.yaml()).contains("email: test@example.com\n").contains("ca: \"https://example.com\"\n")
                .contains("listen: {http: \":8080\", https: \":8443\"}\n");
        Importer.Outcome health = run(CADDYTEST.resolve("reverse_proxy_health_path_query.caddyfile"));
        assertThat(health.findings()).extracting(Finding::line).anySatisfy(l -> assertThat(l).contains(
                "site address :8443"));
    }

    @Test
    void theCommonSubsetConvertsExactly() throws Exception {
        TestCerts.Pair own = TestCerts.fresh("files.example.com");
        Files.writeString(dir.resolve("own.crt"), own.certPem());
        Files.writeString(dir.resolve("own.key"), own.keyPem());
        Files.createDirectories(dir.resolve("sites"));
        Files.writeString(dir.resolve("sites/extra.caddy"), "extra.example.com {\n\treverse_proxy extra:9000\n}\n");
        String bcrypt = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
        String base64 = java.util.Base64.getEncoder().encodeToString(bcrypt.getBytes());
        Path caddyfile = Files.writeString(dir.resolve("Caddyfile"), """
                {
                	email ops@example.com
                	servers {
                		trusted_proxies static 10.0.0.0/8
                	}
                }

                (common) {
                	header X-Frame-Options DENY
                	header -Server
                	encode zstd gzip
                }

                app.example.com, www.app.example.com {
                	import common
                	reverse_proxy app1:8080 app2:8080 {
                		lb_policy first
                		health_uri /healthz
                		health_interval 5s
                		header_up X-Env prod
                	}
                }

                http://plain.example.com {
                	reverse_proxy {$BACKEND}
                }

                old.example.com {
                	redir https://new.example.com{uri} permanent
                }

                private.example.com {
                	basicauth {
                		alice %s
                		bob %s
                	}
                	reverse_proxy private:80
                }

                hello.example.com {
                	respond "Hello, world!" 200
                }

                files.example.com {
                	tls %s %s
                	reverse_proxy files:80
                }

                bücher.example.com {
                	reverse_proxy books:80
                	@api path /api/*
                	reverse_proxy @api api:80
                	file_server /static/*
                }

                import sites/*.caddy
                """.formatted(bcrypt, base64, dir.resolve("own.crt"), dir.resolve("own.key")));
        Importer.Outcome o = Importer.run(CaddyImport.read(caddyfile, dir.resolve("no-certs"),
                        Map.of("BACKEND", "127.0.0.1:9999")::get),
                new Importer.Options(dir.resolve("usher.yaml"), dir.resolve("data"), null, null, false, false, false));
        assertThat(o.yaml()).contains("email: ops@example.com\n").contains("trusted_proxies: [\"10.0.0.0/8\"]\n")
                .contains("  app.example.com:  # from Caddyfile line 14\n    to: [\"app1:8080\", \"app2:8080\"]\n"
                        + "    policy: first\n    health: {path: /healthz, interval: 5s}\n"
                        + "    headers: {X-Frame-Options: \"DENY\", \"-Server\": ~}\n"
                        + "    request_headers: {X-Env: \"prod\"}\n")
                .contains("  www.app.example.com:  # from Caddyfile line 14\n")
                .contains("  http://plain.example.com: 127.0.0.1:9999  # from Caddyfile line 24\n")
                .contains("  old.example.com: {redirect: {to: \"https://new.example.com{uri}\", status: 301}}  # from "
                        + "Caddyfile line 28\n")
                .contains("    basic_auth: {alice: \"" + bcrypt + "\", bob: \"" + bcrypt + "\"}\n")
                .contains("  hello.example.com: {respond: \"Hello, world!\"}  # from Caddyfile line 40\n")
                .contains("  files.example.com:  # from Caddyfile line 44\n    to: files:80\n    tls: {cert: \""
                        + dir.resolve("own.crt") + "\"")
                .contains("  xn--bcher-kva.example.com: books:80  # from Caddyfile line 49, written there as "
                        + "bücher.example.com\n")
                .contains("  extra.example.com: extra:9000  # from Caddyfile line 1\n");
        assertThat(o.findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).startsWith("Caddyfile, line 52: reverse_proxy @api api:80: Usher "
                        + "applies a site's options to every request"))
                .anySatisfy(l -> assertThat(l).startsWith("Caddyfile, line 53: file_server /static/*"));
        assertThat(ConfigLoader.load(dir.resolve("usher.yaml")).sites()).extracting(Site::name).contains(
                "app.example.com", "private.example.com", "files.example.com", "extra.example.com");
    }

    @Test
    void certificatesInCaddysDataFolderAreStoredAndItsLocalCaOnesAreNot() throws Exception {
        Path storage = dir.resolve("caddy-data");
        TestCerts.Pair le = TestCerts.fresh("a.example.com");
        TestCerts.Pair zerossl = TestCerts.fresh("b.example.com");
        TestCerts.Pair wild = TestCerts.fresh("*.w.example.com");
        caddyCert(storage, "acme-v02.api.letsencrypt.org-directory", "a.example.com", le);
        caddyCert(storage, "acme.zerossl.com-v2-dv90", "b.example.com", zerossl);
        caddyCert(storage, "acme-v02.api.letsencrypt.org-directory", "wildcard_.w.example.com", wild);
        caddyCert(storage, "local", "c.example.com", TestCerts.fresh("c.example.com"));
        Path caddyfile = Files.writeString(dir.resolve("Caddyfile"), """
                {
                	storage file_system %s
                }
                a.example.com, b.example.com, c.example.com, *.w.example.com {
                	reverse_proxy app:80
                }
                """.formatted(storage));
        Importer.Outcome o = Importer.run(CaddyImport.read(caddyfile, null, NO_ENV::get),
                new Importer.Options(dir.resolve("usher.yaml"), dir.resolve("data"), null, null, false, false, false));
        assertThat(o.stored()).containsExactly("a.example.com", "b.example.com");
        assertThat(o.copied()).containsExactly("wildcard_.w.example.com");
        assertThat(o.toOrder()).containsExactly("c.example.com");
        assertThat(o.findings()).extracting(Finding::what).contains("certificates of Caddy's local CA");
    }

    static void caddyCert(Path storage, String issuer, String stored, TestCerts.Pair pair) throws IOException {
        Path d = Files.createDirectories(storage.resolve("certificates").resolve(issuer).resolve(stored));
        Files.writeString(d.resolve(stored + ".crt"), pair.certPem());
        Files.writeString(d.resolve(stored + ".key"), pair.keyPem());
        Files.writeString(d.resolve(stored + ".json"), "{}");
    }

    private Importer.Outcome run(Path caddyfile) throws Exception {
        Files.deleteIfExists(dir.resolve("usher.yaml"));
        return Importer.run(CaddyImport.read(caddyfile, dir.resolve("none"), NO_ENV::get),
                new Importer.Options(dir.resolve("usher.yaml"), dir.resolve("data"), null, null, false, false, false));
    }

    static List<String> lines(String s) {
        return s.lines().toList();
    }
}
