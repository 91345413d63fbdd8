package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code paths:} and {@code upstream_tls:} as the loader reads them; their errors are in the golden files. */
class PathsAndBackendsConfigTest {
    private static final String HASH = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";

    private static UsherConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse("listen: {http: \"127.0.0.1:8080\", https: off}\n" + yaml, "test.yaml");
    }

    @Test
    void readsPatternsTargetsAndPrefixEdits() throws Exception {
        Site site = parse("""
                sites:
                  app.example.com:
                    to: web:3000
                    paths:
                      /api/:
                        to: [api1:8080, api2:8080]
                        strip_prefix: true
                        add_prefix: /v1/
                      /healthz: {respond: {status: 200, body: ok}}
                      /old*: {redirect: "https://new.example.com{uri}"}
                      /static/: static:80
                """).sites().get(0);
        assertThat(site.upstreams()).containsExactly(new UpstreamAddress("web", 3000));
        assertThat(site.paths()).extracting(SitePath::pattern, SitePath::match, SitePath::stripPrefix,
                SitePath::addPrefix, SitePath::ownTarget).containsExactly(
                tuple("/api/", SitePath.Match.PREFIX, true, "/v1", true),
                tuple("/healthz", SitePath.Match.EXACT, false, "", true),
                tuple("/old*", SitePath.Match.STARTS_WITH, false, "", true),
                tuple("/static/", SitePath.Match.PREFIX, false, "", true));
        SitePath api = site.paths().get(0);
        assertThat(api.site().upstreams()).containsExactly(new UpstreamAddress("api1", 8080),
                new UpstreamAddress("api2", 8080));
        assertThat(api.literal()).isEqualTo("/api/");
        assertThat(api.strippedPart()).isEqualTo("/api");
        assertThat(api.site().name()).isEqualTo("app.example.com");
        assertThat(api.site().line()).isEqualTo(6);
        assertThat(site.paths().get(1).site().serves()).isInstanceOf(Serves.Answer.class);
        assertThat(site.paths().get(1).site().upstreams()).isEmpty();
        assertThat(site.paths().get(2).site().serves()).isInstanceOf(Serves.RedirectTo.class);
        assertThat(site.paths().get(2).literal()).isEqualTo("/old");
        assertThat(site.serves()).isEqualTo(new Serves.Backends(List.of(new UpstreamAddress("web", 3000))));
    }

    @Test
    void aPathTakesTheSitesOptionsExceptThoseItSets() throws Exception {
        Site site = parse("""
                sites:
                  app.example.com:
                    to: web:3000
                    gzip: false
                    max_body: 1MiB
                    timeouts: {response: 30s, read: 20s}
                    headers: {X-Site: yes}
                    rate_limit: {requests: 10, per: 1s}
                    basic_auth: {alice: "%1$s"}
                    paths:
                      /admin/:
                        allow: [10.0.0.0/8]
                      /upload/:
                        to: uploads:80
                        max_body: 1GiB
                        timeouts: {response: 5m}
                        basic_auth: off
                        rate_limit: off
                        gzip: true
                """.formatted(HASH)).sites().get(0);
        SitePath admin = site.paths().get(0);
        assertThat(admin.ownTarget()).isFalse();
        assertThat(admin.site().upstreams()).isEqualTo(site.upstreams());
        assertThat(admin.site().traffic().access().basicAuth()).containsEntry("alice", HASH);
        assertThat(admin.site().traffic().access().allow()).hasSize(1);
        assertThat(admin.site().traffic().rateLimit()).isEqualTo(site.traffic().rateLimit());
        assertThat(admin.site().maxBody()).isEqualTo(1024 * 1024);
        assertThat(admin.site().traffic().compress()).isFalse();
        assertThat(admin.site().traffic().responseHeaders()).isEqualTo(site.traffic().responseHeaders());
        SitePath upload = site.paths().get(1);
        assertThat(upload.site().maxBody()).isEqualTo(1024L * 1024 * 1024);
        assertThat(upload.site().responseTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(upload.site().traffic().readTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(upload.site().traffic().access().basicAuth()).isEmpty();
        assertThat(upload.site().traffic().rateLimit()).isNull();
        assertThat(upload.site().traffic().compress()).isTrue();
        assertThat(site.traffic().access().basicAuth()).isEqualTo(Map.of("alice", HASH));
    }

    @Test
    void aSiteMayBeOnlyPaths() throws Exception {
        Site site = parse("""
                sites:
                  api.example.com:
                    paths:
                      /v1/: v1:80
                      /v2/: v2:80
                """).sites().get(0);
        assertThat(site.serves()).isEqualTo(Serves.NOTHING);
        assertThat(site.forwards()).isFalse();
        assertThat(site.paths()).hasSize(2);
    }

    @Test
    void aPathOfARedirectingSiteMayForward() throws Exception {
        Site site = parse("""
                sites:
                  app.example.com:
                    redirect: https://elsewhere.example.com{uri}
                    paths:
                      /api/: api:80
                """).sites().get(0);
        assertThat(site.paths().get(0).site().traffic().redirect()).isNull();
        assertThat(site.paths().get(0).site().serves()).isInstanceOf(Serves.Backends.class);
    }

    @Test
    void httpsBackendsGetTheSitesUpstreamTlsWithItsFilesRead(@TempDir Path dir) throws Exception {
        SelfSignedCertificate cert = new SelfSignedCertificate("backend.internal");
        Files.copy(cert.certificate().toPath(), dir.resolve("ca.pem"));
        Files.copy(cert.certificate().toPath(), dir.resolve("client.pem"));
        Files.copy(cert.privateKey().toPath(), dir.resolve("client.key"));
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, """
                listen: {http: "127.0.0.1:8080", https: off}
                sites:
                  pve.example.com:
                    to: [https://10.0.0.5:8006, http://10.0.0.6:80]
                    upstream_tls:
                      ca: ca.pem
                      server_name: Backend.Internal
                      client_cert: client.pem
                      client_key: client.key
                      alpn: [h2, http/1.1]
                    paths:
                      /other/:
                        to: https://10.0.0.7
                        upstream_tls: {insecure_skip_verify: true, alpn: [http/1.1]}
                  portainer.example.com: https://portainer:9443
                  grpc.example.com: h2c://grpc:50051
                """);
        UsherConfig config = ConfigLoader.load(file);
        Site pve = config.sites().get(0);
        UpstreamAddress https = pve.upstreams().get(0);
        assertThat(https.scheme()).isEqualTo(UpstreamScheme.HTTPS);
        assertThat(https.tls().caFile()).isEqualTo(dir.toAbsolutePath().resolve("ca.pem"));
        assertThat(https.tls().caPem()).isEqualTo(Files.readString(cert.certificate().toPath()));
        assertThat(https.tls().serverName()).isEqualTo("backend.internal");
        assertThat(https.tls().clientCertificate()).isTrue();
        assertThat(https.tls().alpn()).containsExactly("h2", "http/1.1");
        assertThat(https.mayUseH2()).isTrue();
        assertThat(https.tls().toString()).doesNotContain("PRIVATE");
        assertThat(pve.upstreams().get(1).tls()).isNull();
        UpstreamTls other = pve.paths().get(0).site().upstreams().get(0).tls();
        assertThat(other.insecureSkipVerify()).isTrue();
        assertThat(other.caFile()).as("inherited from the site").isEqualTo(https.tls().caFile());
        assertThat(other.alpn()).containsExactly("http/1.1");
        assertThat(config.sites().get(1).upstreams().get(0)).isEqualTo(new UpstreamAddress("portainer", 9443,
                UpstreamScheme.HTTPS, UpstreamTls.DEFAULT));
        assertThat(config.sites().get(2).upstreams().get(0).mayUseH2()).isTrue();
    }

    @Test
    void aChangedCaFileIsAChangedSite(@TempDir Path dir) throws Exception {
        Path ca = dir.resolve("ca.pem");
        Files.copy(new SelfSignedCertificate("a.internal").certificate().toPath(), ca);
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, "listen: {https: off}\nsites:\n  a.example.com: {to: https://a:443, "
                + "upstream_tls: {ca: ca.pem}}\n");
        Site before = ConfigLoader.load(file).sites().get(0);
        Files.copy(new SelfSignedCertificate("a.internal").certificate().toPath(), ca,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Site after = ConfigLoader.load(file).sites().get(0);
        assertThat(after).isNotEqualTo(before);
    }
}
