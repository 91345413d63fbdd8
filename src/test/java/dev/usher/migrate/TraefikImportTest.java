package dev.usher.migrate;

import dev.usher.config.ConfigLoader;
import dev.usher.config.Site;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher import traefik}: Traefik's documentation examples as a dynamic file in YAML and in TOML (the same
 * result), its docker-compose example's labels, a static file that names the dynamic one, and acme.json.
 */
class TraefikImportTest {
    static final Path DOCS = Path.of("src/test/resources/migrate/traefik");

    @TempDir
    Path dir;

    @Test
    void theDocumentationsDynamicFileConverts() throws Exception {
        Importer.Outcome o = run(DOCS.resolve("dynamic.yml"), null);
        assertThat(o.yaml())
                .contains("  http://example.com:  # from Traefik router my-router\n"
                        + "    to: [\"localhost:8080\", \"localhost:8081\"]\n"
                        + "    health: {path: /health, interval: 10s, timeout: 3s}\n")
                .contains("  secure.example.com:  # from Traefik router secure-router\n"
                        + "    to: [\"localhost:8080\", \"localhost:8081\"]\n"
                        + "    health: {path: /health, interval: 10s, timeout: 3s}\n"
                        + "    headers: {\"-X-Custom-Response-Header\": ~, X-Frame-Options: \"DENY\", "
                        + "X-XSS-Protection: \"1; mode=block\"}\n"
                        + "    request_headers: {X-Script-Name: \"test\", \"-X-Custom-Request-Header\": ~}\n"
                        + "    allow: [\"127.0.0.1/32\", \"192.168.1.7\"]\n"
                        + "    rate_limit: {requests: 100, per: 1s, burst: 200}\n")
                .contains("  www.secure.example.com:  # from Traefik router secure-router\n")
                .contains("  # auth.example.com:  # from Traefik router auth-router; not active: none of its "
                        + "basic-auth users could be carried over\n")
                .doesNotContain("secure-redirect");
        assertThat(o.findings()).extracting(Finding::line)
                .anySatisfy(l -> assertThat(l).startsWith("dynamic.yml, router api-router: rule Host(`example.com`) "
                        + "&& PathPrefix(`/api`): it also matches on PathPrefix()"))
                .anySatisfy(l -> assertThat(l).contains("middleware test-auth (basicAuth) user test: its hash is not "
                        + "bcrypt (Apache MD5)"))
                .noneSatisfy(l -> assertThat(l).contains("secure-redirect"));
        assertThat(ConfigLoader.load(dir.resolve("usher.yaml")).sites()).extracting(Site::name)
                .containsExactly("example.com", "secure.example.com", "www.secure.example.com");
    }

    @Test
    void theSameConfigurationInTomlGivesTheSameFile() throws Exception {
        String yaml = run(DOCS.resolve("dynamic.yml"), null).yaml();
        Files.delete(dir.resolve("usher.yaml"));
        String toml = run(DOCS.resolve("dynamic.toml"), null).yaml();
        assertThat(toml.replace("dynamic.toml", "dynamic.yml")).isEqualTo(yaml.replace(DOCS.resolve("dynamic.yml")
                .toString(), DOCS.resolve("dynamic.yml").toString()));
    }

    @Test
    void theDocumentationsComposeLabelsAndAcmeJsonConvert() throws Exception {
        Path compose = Files.copy(DOCS.resolve("docker-compose.yml"), dir.resolve("docker-compose.yml"));
        TestCerts.Pair cert = TestCerts.fresh("whoami.example.com");
        Files.createDirectories(dir.resolve("letsencrypt"));
        Files.writeString(dir.resolve("letsencrypt/acme.json"), acmeJson("myresolver", "whoami.example.com", cert));
        Importer.Outcome o = run(compose, null);
        assertThat(o.yaml()).contains("email: postmaster@example.com\n")
                .contains("  whoami.example.com: whoami:80  # from Traefik router whoami\n");
        assertThat(o.stored()).containsExactly("whoami.example.com");
        assertThat(o.findings()).extracting(Finding::line).anySatisfy(l -> assertThat(l)
                .contains("service whoami: no loadbalancer.server.port label").contains("port 80 assumed"));
        assertThat(Files.readString(dir.resolve("data/certificates/acme-v02.api.letsencrypt.org-directory/"
                + "whoami.example.com/meta.json"))).contains(cert.sha256());
    }

    @Test
    void aStaticFileLeadsToItsDynamicFileTheResolversEmailCaAndAcmeJson() throws Exception {
        Files.copy(DOCS.resolve("dynamic.toml"), dir.resolve("routes.toml"));
        TestCerts.Pair cert = TestCerts.fresh("secure.example.com", "www.secure.example.com");
        Files.writeString(dir.resolve("store.json"), acmeJson("le", "secure.example.com", cert));
        Path traefik = Files.writeString(dir.resolve("traefik.yml"), """
                entryPoints:
                  web: {address: ":80"}
                  websecure: {address: ":443"}
                providers:
                  file: {filename: routes.toml}
                certificatesResolvers:
                  le:
                    acme:
                      email: ops@example.com
                      caServer: https://acme-staging-v02.api.letsencrypt.org/directory
                      storage: store.json
                      httpChallenge: {entryPoint: web}
                """);
        Importer.Outcome o = run(traefik, null);
        assertThat(o.yaml()).contains("email: ops@example.com\n")
                .contains("acme:\n  ca: \"https://acme-staging-v02.api.letsencrypt.org/directory\"\n")
                .contains("# from Traefik router my-router");
        assertThat(o.stored()).containsExactly("secure.example.com", "www.secure.example.com");
        assertThat(dir.resolve("data/certificates/acme-staging-v02.api.letsencrypt.org-directory/secure.example.com"))
                .isDirectory();
    }

    @Test
    void labelsInMappingFormWithBcryptAuthAndDollarEscapes() throws Exception {
        String hash = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
        Path compose = Files.writeString(dir.resolve("compose.yaml"), """
                services:
                  app:
                    image: example/app
                    expose: ["3000"]
                    labels:
                      traefik.http.routers.app.rule: "Host(`app.example.com`)"
                      traefik.http.routers.app.tls: "true"
                      traefik.http.routers.app.middlewares: "auth"
                      traefik.http.middlewares.auth.basicauth.users: "alice:%s"
                      traefik.docker.network: web
                  off:
                    image: example/off
                    labels: ["traefik.enable=false", "traefik.http.routers.off.rule=Host(`off.example.com`)"]
                """.formatted(hash.replace("$", "$$")));
        Importer.Outcome o = run(compose, null);
        assertThat(o.yaml()).contains("  app.example.com:  # from Traefik router app\n    to: app:3000\n"
                + "    basic_auth: {alice: \"" + hash + "\"}\n").doesNotContain("off.example.com");
        assertThat(o.findings()).extracting(Finding::line).anySatisfy(l -> assertThat(l)
                .contains("traefik.docker.network=web"));
    }

    private Importer.Outcome run(Path source, Path certs) throws Exception {
        return Importer.run(TraefikImport.read(source, certs), new Importer.Options(dir.resolve("usher.yaml"),
                dir.resolve("data"), null, null, false, false, false));
    }

    static String acmeJson(String resolver, String main, TestCerts.Pair cert) {
        Base64.Encoder b64 = Base64.getEncoder();
        return """
                {"%s": {"Account": {"Email": "ops@example.com", "Registration": {}, "PrivateKey": "x", "KeyType": "4096"},
                  "Certificates": [{"domain": {"main": "%s"}, "certificate": "%s", "key": "%s", "Store": "default"}]}}
                """.formatted(resolver, main, b64.encodeToString(cert.certPem().getBytes(StandardCharsets.US_ASCII)),
                b64.encodeToString(cert.keyPem().getBytes(StandardCharsets.US_ASCII)));
    }
}
