package dev.usher.config;

import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Line-preserving edits: only the edited site's lines change; comments, spacing and other sections stay. */
class ConfigEditorTest {
    private static final String FILE = """
            # Usher config, kept in git
            listen:   {http: ":8080"}    # odd spacing stays

            sites:
                # the shop
                shop.example.com:   shop:80   # inline comment
                # blog, two backends
                blog.example.com:
                      to: [blog1:80, blog2:80]
                      gzip: false

                "*.dev.example.com": {to: dev:80, tls: internal}
                # retired.example.com: old:80

            # trailing section
            timeouts:
              connect: 5s
            """;

    private static SiteForm simple(String name, String... upstreams) {
        return new SiteForm(name, List.of(upstreams), null, null, null, null, null, null, null, null);
    }

    @Test
    void findsEachSiteWithItsLinesAndForm() throws Exception {
        List<ConfigEditor.Entry> sites = ConfigEditor.sites(FILE);
        assertThat(sites).extracting(ConfigEditor.Entry::name)
                .containsExactly("shop.example.com", "blog.example.com", "*.dev.example.com");
        assertThat(sites.get(0).yaml()).isEqualTo("    shop.example.com:   shop:80   # inline comment\n");
        assertThat(sites.get(1).yaml()).isEqualTo("""
                    blog.example.com:
                          to: [blog1:80, blog2:80]
                          gzip: false
                """);
        assertThat(sites.get(1).form().upstreams()).containsExactly("blog1:80", "blog2:80");
        assertThat(sites.get(1).form().gzip()).isFalse();
        assertThat(sites.get(2).form().tls()).isEqualTo("internal");
        assertThat(sites).allMatch(ConfigEditor.Entry::editable);
    }

    @Test
    void changingOneSiteChangesOnlyItsLines() throws Exception {
        String edited = ConfigEditor.put(FILE, "blog.example.com", simple("blog.example.com", "blog3:80"));
        assertThat(edited).isEqualTo(FILE.replace("""
                    blog.example.com:
                          to: [blog1:80, blog2:80]
                          gzip: false
                """, "    blog.example.com: blog3:80\n"));
        ConfigLoader.parse(edited, "edited.yaml");
    }

    @Test
    void writesTheLongFormWithTheFilesIndentation() throws Exception {
        SiteForm form = new SiteForm("shop.example.com", List.of("shop:80", "shop2:80"), "internal", null, null,
                "least_conn", false, "10MiB", true, "/healthz");
        String edited = ConfigEditor.put(FILE, "shop.example.com", form);
        assertThat(edited).contains("""
                    shop.example.com:
                          to: [shop:80, shop2:80]
                          tls: internal
                          policy: least_conn
                          gzip: false
                          max_body: 10MiB
                          security_headers: true
                          health: {path: /healthz}
                    # blog, two backends
                """);
        UsherConfig config = ConfigLoader.parse(edited, "edited.yaml");
        Site shop = config.sites().get(0);
        assertThat(shop.maxBody()).isEqualTo(10L * 1024 * 1024);
        assertThat(shop.traffic().balancing().health().path()).isEqualTo("/healthz");
        assertThat(ConfigEditor.site(edited, "shop.example.com").orElseThrow().form()).isEqualTo(form);
    }

    @Test
    void addsANewSiteAfterTheLastOneBeforeTrailingComments() throws Exception {
        String edited = ConfigEditor.put(FILE, null, simple("*.new.localhost", "new:80"));
        assertThat(edited).isEqualTo(FILE.replace("""
                    "*.dev.example.com": {to: dev:80, tls: internal}
                """, """
                    "*.dev.example.com": {to: dev:80, tls: internal}
                    "*.new.localhost": new:80
                """));
        assertThat(ConfigLoader.parse(edited, "x.yaml").sites()).hasSize(4);
    }

    @Test
    void deletesTheSiteAndTheCommentsDirectlyAboveIt() throws Exception {
        String edited = ConfigEditor.delete(FILE, "blog.example.com");
        assertThat(edited).isEqualTo(FILE.replace("""
                    # blog, two backends
                    blog.example.com:
                          to: [blog1:80, blog2:80]
                          gzip: false
                """, ""));
    }

    @Test
    void renamesInPlaceAndRefusesAnExistingName() throws Exception {
        String edited = ConfigEditor.put(FILE, "shop.example.com", simple("store.example.com", "shop:80"));
        assertThat(edited).contains("    # the shop\n    store.example.com: shop:80\n    # blog");
        assertThatThrownBy(() -> ConfigEditor.put(FILE, "shop.example.com", simple("blog.example.com", "x:80")))
                .isInstanceOf(ConfigEditor.EditException.class).hasMessageContaining("exists");
        assertThatThrownBy(() -> ConfigEditor.put(FILE, null, simple("SHOP.example.com", "x:80")))
                .hasMessageContaining("exists");
        assertThatThrownBy(() -> ConfigEditor.delete(FILE, "nope.example.com")).hasMessageContaining("no site");
    }

    @Test
    void createsSitesWhenAbsentAndKeepsCrlf() throws Exception {
        String crlf = "# top\r\nlisten: {http: \":80\"}\r\n";
        String edited = ConfigEditor.put(crlf, null, simple("a.example.com", "a:80"));
        assertThat(edited).isEqualTo(crlf + "\r\nsites:\r\n  a.example.com: a:80\r\n");
        String empty = "sites:\n# nothing yet\n";
        assertThat(ConfigEditor.put(empty, null, simple("b.example.com", "b:80")))
                .isEqualTo("sites:\n  b.example.com: b:80\n# nothing yet\n");
        String noNewline = "sites:\n  a.example.com: a:80";
        assertThat(ConfigEditor.put(noNewline, null, simple("b.example.com", "b:80")))
                .isEqualTo("sites:\n  a.example.com: a:80\n  b.example.com: b:80\n");
    }

    @Test
    void plainHttpSitesAndQuoting() throws Exception {
        SiteForm off = new SiteForm("plain.example.com", List.of("[::1]:8080"), "off", null, null, null, null,
                null, null, null);
        String edited = ConfigEditor.put("sites:\n", null, off);
        assertThat(edited).isEqualTo("sites:\n  http://plain.example.com: \"[::1]:8080\"\n");
        assertThat(ConfigEditor.site(edited, "plain.example.com").orElseThrow().form()).isEqualTo(off);
        assertThat(ConfigLoader.parse(edited, "x.yaml").sites().get(0).plainHttp()).isTrue();
    }

    @Test
    void refusesFlowStyleSitesAndMarksUncoveredOptionsReadOnly() throws Exception {
        assertThatThrownBy(() -> ConfigEditor.put("sites: {a.example.com: a:80}\n", null, simple("b.example.com",
                "b:80"))).hasMessageContaining("flow style");
        List<ConfigEditor.Entry> sites = ConfigEditor.sites("""
                sites:
                  a.example.com: {to: a:80, basic_auth: {bob: "$2y$10$x"}}
                  b.example.com: {redirect: "https://c.example.com{uri}"}
                """);
        assertThat(sites).extracting(ConfigEditor.Entry::editable).containsExactly(false, false);
        assertThat(sites).extracting(ConfigEditor.Entry::kind).containsExactly("proxy", "redirect");
        List<ConfigEditor.Entry> merged = ConfigEditor.sites("""
                x-defaults: &defaults {to: a:80, gzip: false}
                sites:
                  a.example.com: {<<: *defaults, max_body: 1MiB}
                  b.example.com: *defaults
                  c.example.com: {to: c:80}
                """);
        assertThat(merged).extracting(ConfigEditor.Entry::editable).containsExactly(false, false, true);
    }

    @Test
    void pathsAndAnUnverifiedHttpsUpstreamAreWrittenAndReadBack() throws Exception {
        SiteForm form = new SiteForm("nas.example.com", List.of("https://10.0.0.5:5001"), null, null, null, null,
                null, null, null, null, List.of(new SiteForm.Path("/api/", "h2c://api:50051", true),
                new SiteForm.Path("/exact", "app:80", false)), true, SiteForm.SelfHosting.NONE);
        String edited = ConfigEditor.put(FILE, "shop.example.com", form);
        // the file's own indentation (4, then 6 more), keys quoted as the writer quotes any key with a slash
        assertThat(edited).contains("""
                    nas.example.com:
                          to: https://10.0.0.5:5001
                          upstream_tls: {insecure_skip_verify: true}
                          paths:
                                "/api/": {to: h2c://api:50051, strip_prefix: true}
                                "/exact": {to: app:80}
                """);
        UsherConfig config = ConfigLoader.parse(edited, "edited.yaml");
        Site site = config.sites().stream().filter(s -> s.name().equals("nas.example.com")).findFirst().orElseThrow();
        assertThat(site.paths()).extracting(SitePath::pattern).containsExactly("/api/", "/exact");
        assertThat(site.paths().get(0).stripPrefix()).isTrue();
        assertThat(site.upstreams().get(0).tls().insecureSkipVerify()).isTrue();
        ConfigEditor.Entry back = ConfigEditor.site(edited, "nas.example.com").orElseThrow();
        assertThat(back.editable()).isTrue();
        assertThat(back.form()).isEqualTo(form);
    }

    @Test
    void pathsWithOptionsTheFormLacksLeaveTheSiteReadOnly() throws Exception {
        List<ConfigEditor.Entry> sites = ConfigEditor.sites("""
                sites:
                  a.example.com:
                    to: a:80
                    paths: {/api/: {to: api:80, basic_auth: {u: x}}}
                  b.example.com:
                    to: b:80
                    upstream_tls: {ca: ca.pem}
                  c.example.com:
                    to: c:80
                    paths: {/api/: api:80, /v2/: {to: v2:80, strip_prefix: true}}
                """);
        assertThat(sites).extracting(ConfigEditor.Entry::editable).containsExactly(false, false, true);
    }

    @Test
    void selfHostingOptionsAreWrittenAndReadBack(@org.junit.jupiter.api.io.TempDir java.nio.file.Path www)
            throws Exception {
        SiteForm files = new SiteForm("www.example.com", List.of(), null, null, null, null, null, null, null, null,
                List.of(), null, new SiteForm.SelfHosting(www.toString(), true, null, null, null));
        SiteForm app = new SiteForm("app.example.com", List.of("app:80"), null, null, null, null, null, null, null,
                null, List.of(), null, new SiteForm.SelfHosting(null, null, "10s", "http://authelia:9091",
                "authelia"));
        String edited = ConfigEditor.put(ConfigEditor.put(FILE, null, files), null, app);
        assertThat(edited).contains("""
                    www.example.com:
                          root: %s
                          maintenance: true
                """.formatted(www)).contains("""
                    app.example.com:
                          to: app:80
                          forward_auth: {url: http://authelia:9091, preset: authelia}
                          wait_for_backend: 10s
                """);
        UsherConfig config = ConfigLoader.parse(edited, "edited.yaml");
        Site served = config.sites().stream().filter(s -> s.name().equals("www.example.com")).findFirst()
                .orElseThrow();
        assertThat(served.traffic().files().root()).isEqualTo(www);
        assertThat(served.traffic().maintenance()).isNotNull();
        Site proxied = config.sites().stream().filter(s -> s.name().equals("app.example.com")).findFirst()
                .orElseThrow();
        assertThat(proxied.traffic().forwardAuth().preset()).isEqualTo("authelia");
        assertThat(proxied.traffic().waitForBackend().time()).hasSeconds(10);
        for (SiteForm form : List.of(files, app)) {
            ConfigEditor.Entry back = ConfigEditor.site(edited, form.name()).orElseThrow();
            assertThat(back.editable()).as(form.name()).isTrue();
            assertThat(back.form()).isEqualTo(form);
        }
        assertThat(ConfigEditor.site(edited, "www.example.com").orElseThrow().kind()).isEqualTo("files");
    }

    @Test
    void selfHostingOptionsTheFormLacksLeaveTheSiteReadOnly() throws Exception {
        List<ConfigEditor.Entry> sites = ConfigEditor.sites("""
                sites:
                  a.example.com: {to: a:80, forward_auth: {url: "http://auth:9091", copy_headers: [Remote-User]}}
                  b.example.com: {to: b:80, maintenance: {file: /srv/MAINTENANCE}}
                  c.example.com: {root: /srv/www, browse: true}
                  d.example.com: {to: d:80, error_pages: {502: /srv/502.html}}
                  e.example.com: {to: e:80, forward_auth: "http://auth:9091", maintenance: false}
                """);
        assertThat(sites).extracting(ConfigEditor.Entry::editable).containsExactly(false, false, false, false, true);
    }
}
