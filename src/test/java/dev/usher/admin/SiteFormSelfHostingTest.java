package dev.usher.admin;

import dev.usher.testing.AutheliaForwardAuthServer;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The site form's self-hosting options through the admin API, each written into the file and then served: a static
 * site's folder, maintenance mode, wait_for_backend, forward auth with a preset (against
 * {@link AutheliaForwardAuthServer}, a server started in the test following Authelia's documented contract); bad input
 * gets errors at the form's fields and leaves the file alone.
 */
class SiteFormSelfHostingTest {
    private static final String FILE = """
            listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
            admin: "127.0.0.1:0"
            data: ./data
            sites:
              http://old.localhost: {to: [%s]}
            """;

    @TempDir
    Path folder;
    Whoami backend;
    AdminUnderTest admin;

    @BeforeEach
    void start() throws Exception {
        backend = Whoami.start("127.0.0.1", 0, "the-backend");
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, FILE.formatted(upstream()));
        admin = AdminUnderTest.start(file);
    }

    @AfterEach
    void stop() {
        admin.close();
        backend.close();
    }

    private String upstream() {
        return "127.0.0.1:" + backend.port();
    }

    private HttpResponse<String> put(String json) throws Exception {
        return admin.write("PUT", "/api/sites/old.localhost", admin.version(), json);
    }

    private String get(String path, String... headers) throws Exception {
        return admin.request("GET", path, null, "old.localhost" + (headers.length == 0 ? ""
                : "\r\n" + String.join("\r\n", headers)));
    }

    @Test
    void aFolderMaintenanceAndWaitingAreSetFromTheFormAndServed() throws Exception {
        Path www = Files.createDirectories(folder.resolve("www"));
        Files.writeString(www.resolve("index.html"), "<p>hello static</p>");
        HttpResponse<String> files = put("""
                {"name": "old.localhost", "upstreams": [], "root": "%s", "tls": "off"}""".formatted(www));
        assertThat(files.statusCode()).as(files.body()).isEqualTo(200);
        assertThat(Files.readString(admin.file)).contains("root: " + www);
        assertThat(get("/")).startsWith("HTTP/1.1 200").contains("hello static");
        assertThat(admin.get("/api/sites/old.localhost").body()).contains("\"root\":\"" + www + "\"")
                .contains("\"kind\":\"files\",\"editable\":true");
        assertThat(admin.get("/api/sites").body()).contains("{\"name\":\"old.localhost\",\"kind\":\"files\"");

        HttpResponse<String> down = put("""
                {"name": "old.localhost", "upstreams": ["%s"], "tls": "off", "maintenance": true,
                 "wait_for_backend": "10s"}""".formatted(upstream()));
        assertThat(down.statusCode()).as(down.body()).isEqualTo(200);
        assertThat(Files.readString(admin.file)).contains("maintenance: true").contains("wait_for_backend: 10s");
        assertThat(get("/")).startsWith("HTTP/1.1 503").containsIgnoringCase("retry-after:")
                .doesNotContain("the-backend");
        assertThat(admin.get("/api/sites/old.localhost").body()).contains("\"maintenance\":true")
                .contains("\"wait_for_backend\":\"10s\"");

        HttpResponse<String> up = put("""
                {"name": "old.localhost", "upstreams": ["%s"], "tls": "off", "wait_for_backend": "10s"}"""
                .formatted(upstream()));
        assertThat(up.statusCode()).as(up.body()).isEqualTo(200);
        assertThat(Files.readString(admin.file)).doesNotContain("maintenance");
        assertThat(get("/")).startsWith("HTTP/1.1 200").contains("the-backend");
    }

    @Test
    void forwardAuthWithAPresetFromTheFormGuardsTheSite() throws Exception {
        try (AutheliaForwardAuthServer authelia = AutheliaForwardAuthServer.start()) {
            HttpResponse<String> r = put("""
                    {"name": "old.localhost", "upstreams": ["%s"], "tls": "off",
                     "forward_auth": {"url": "http://127.0.0.1:%d", "preset": "authelia"}}"""
                    .formatted(upstream(), authelia.port()));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(Files.readString(admin.file)).contains("forward_auth: {url: http://127.0.0.1:"
                    + authelia.port() + ", preset: authelia}");
            String login = get("/");
            assertThat(login).startsWith("HTTP/1.1 302").contains("Location: " + AutheliaForwardAuthServer.PORTAL)
                    .doesNotContain("the-backend");
            // the preset copies Remote-User; the client's own copy never reaches the backend
            String in = get("/", "Cookie: authelia_session=alice-session", "Remote-User: admin");
            assertThat(in).startsWith("HTTP/1.1 200").contains("the-backend").contains("Remote-User: alice")
                    .doesNotContain("Remote-User: admin");
            assertThat(admin.get("/api/sites/old.localhost").body()).contains("\"forward_auth\":{\"url\":\"http://"
                    + "127.0.0.1:" + authelia.port() + "\",\"preset\":\"authelia\"}").contains("\"editable\":true");
        }
    }

    @Test
    void badSelfHostingInputGetsFieldErrorsAndLeavesTheFileAlone() throws Exception {
        byte[] before = Files.readAllBytes(admin.file);
        assertThat(put("""
                {"name": "old.localhost", "upstreams": ["a:80"], "root": "/srv/www"}""").body())
                .contains("{\"field\":\"upstreams\",\"message\":\"a site serves a folder or forwards to upstreams");
        assertThat(put("""
                {"name": "old.localhost", "upstreams": ["a:80"], "wait_for_backend": "soon"}""").body())
                .contains("{\"field\":\"wait_for_backend\"");
        assertThat(put("""
                {"name": "old.localhost", "upstreams": ["a:80"], "forward_auth": {"url": "ftp://auth:21"}}""").body())
                .contains("{\"field\":\"forward_auth.url\",\"message\":\"the auth server is an http:// or https:// URL");
        assertThat(put("""
                {"name": "old.localhost", "upstreams": ["a:80"], "forward_auth": {"preset": "authelia"}}""").body())
                .contains("{\"field\":\"forward_auth.url\",\"message\":\"give the auth server's URL");
        assertThat(put("""
                {"name": "old.localhost", "upstreams": [], "root": "%s/missing"}""".formatted(folder)).body())
                .contains("{\"field\":\"root\"");
        assertThat(Files.readAllBytes(admin.file)).isEqualTo(before);
    }
}
