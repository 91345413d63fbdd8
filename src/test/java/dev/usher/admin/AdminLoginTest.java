package dev.usher.admin;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password-protected admin endpoint: login (bcrypt), session cookie flags, CSRF, logout, the throttle, Bearer
 * tools still served, and the admin UI served as an HTTPS site on a name of its own.
 */
class AdminLoginTest {
    private static final String PASSWORD = "correct horse battery";
    private static final String HASH = OpenBSDBCrypt.generate(PASSWORD.toCharArray(), new byte[16], 4);

    @TempDir
    Path folder;

    private Usher start(String admin) throws Exception {
        Path file = folder.resolve("usher.yaml");
        Files.writeString(file, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: %s
                data: ./data
                sites:
                  app.localhost: 127.0.0.1:9
                """.formatted(admin));
        Usher usher = Usher.start(ConfigLoader.load(file), 1);
        usher.reloadFrom(file);
        return usher;
    }

    /** One request on a new connection to the admin port; the whole answer. */
    private static String send(Usher usher, String method, String path, String headers, String body)
            throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.adminAddress().getPort())) {
            return exchange(s, method, path, "localhost", headers, body);
        }
    }

    private static String exchange(Socket s, String method, String path, String host, String headers, String body)
            throws Exception {
        s.setSoTimeout(10_000);
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = s.getOutputStream();
        out.write((method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n" + headers
                + "Content-Length: " + content.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        out.write(content);
        out.flush();
        InputStream in = s.getInputStream();
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    private static String header(String response, String name) {
        for (String line : response.split("\r\n")) {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
                return line.substring(name.length() + 1).strip();
            }
            if (line.isEmpty()) {
                break;
            }
        }
        return null;
    }

    @Test
    void loginGivesAStrictCookieAndCsrfTokenLogoutEndsIt() throws Exception {
        try (Usher usher = start("{listen: \"127.0.0.1:0\", password: \"" + HASH + "\"}")) {
            assertThat(send(usher, "GET", "/api/session", "", null)).contains("\"login_required\":true")
                    .contains("\"logged_in\":false").contains("\"csrf\":null");
            String refused = send(usher, "GET", "/api/sites", "", null);
            assertThat(refused).startsWith("HTTP/1.1 401").contains("{\"error\":\"login required\"}");
            assertThat(send(usher, "POST", "/api/login", "", "{\"password\": \"wrong\"}"))
                    .startsWith("HTTP/1.1 401");

            String login = send(usher, "POST", "/api/login", "Content-Type: application/json\r\n",
                    "{\"password\": \"" + PASSWORD + "\"}");
            assertThat(login).startsWith("HTTP/1.1 200");
            String cookie = header(login, "set-cookie");
            assertThat(cookie).matches("usher_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/");
            String session = "Cookie: " + cookie.substring(0, cookie.indexOf(';')) + "\r\n";
            String csrf = AdminApiTest.field(login, "csrf");
            assertThat(send(usher, "GET", "/api/session", session, null)).contains("\"logged_in\":true")
                    .contains("\"csrf\":\"" + csrf + "\"");
            String sites = send(usher, "GET", "/api/sites", session, null);
            assertThat(sites).startsWith("HTTP/1.1 200").contains("app.localhost");
            String version = AdminApiTest.field(sites, "version");

            String noCsrf = send(usher, "DELETE", "/api/sites/app.localhost", session + "If-Match: " + version
                    + "\r\n", null);
            assertThat(noCsrf).startsWith("HTTP/1.1 403");
            String otherToken = send(usher, "DELETE", "/api/sites/app.localhost", session + "If-Match: " + version
                    + "\r\nX-Usher-CSRF: " + csrf.substring(1) + "x\r\n", null);
            assertThat(otherToken).startsWith("HTTP/1.1 403");
            assertThat(send(usher, "POST", "/api/reload", session + "X-Usher-CSRF: " + csrf + "\r\n", ""))
                    .startsWith("HTTP/1.1 200");

            String bigRestore = "POST /api/restore HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000000\r\n\r\n";
            try (Socket s = new Socket("127.0.0.1", usher.adminAddress().getPort())) {
                s.getOutputStream().write(bigRestore.getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(s.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
                        .as("a large upload without a session is refused before it is read").isEqualTo("HTTP/1.1 413");
            }
            try (Socket s = new Socket("127.0.0.1", usher.adminAddress().getPort())) {
                s.getOutputStream().write(bigRestore.replace("\r\n\r\n", "\r\n" + session + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().write(new byte[1_000_000]);
                assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                        .as("with a session it is read (and then refused as no archive)").startsWith("HTTP/1.1 4")
                        .doesNotStartWith("HTTP/1.1 413");
            }

            String logout = send(usher, "POST", "/api/logout", session, "");
            assertThat(logout).startsWith("HTTP/1.1 204");
            assertThat(header(logout, "set-cookie")).contains("usher_session=;").contains("Max-Age=0");
            assertThat(send(usher, "GET", "/api/sites", session, null)).startsWith("HTTP/1.1 401");
        }
    }

    @Test
    void toolsWithTheSecretStillWorkAndWrongPasswordsAreThrottled() throws Exception {
        try (Usher usher = start("{listen: \"127.0.0.1:0\", secret: \"" + HASH + "\"}")) {
            assertThat(send(usher, "GET", "/health", "Authorization: Bearer " + PASSWORD + "\r\n", null))
                    .startsWith("HTTP/1.1 200");
            assertThat(send(usher, "GET", "/api/sites", "Authorization: Bearer " + PASSWORD + "\r\n", null))
                    .startsWith("HTTP/1.1 200").contains("app.localhost");
            assertThat(send(usher, "GET", "/health", "", null)).startsWith("HTTP/1.1 401");
            for (int i = 0; i < Sessions.FAILURES_ALLOWED; i++) {
                assertThat(send(usher, "POST", "/api/login", "", "{\"password\": \"guess" + i + "\"}"))
                        .startsWith("HTTP/1.1 401");
            }
            assertThat(send(usher, "POST", "/api/login", "", "{\"password\": \"" + PASSWORD + "\"}"))
                    .as("even the right password waits after too many wrong ones").startsWith("HTTP/1.1 429");
        }
    }

    @Test
    void servesTheAdminUiAsAnHttpsSiteWithSecureCookies() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        try (Usher usher = start("{listen: \"127.0.0.1:" + port + "\", password: \"" + HASH
                + "\", site: admin.localhost}")) {
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, new TrustManager[] {new TrustAll()}, null);
            String login;
            X509Certificate served;
            try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1",
                    usher.httpsAddress().getPort())) {
                SSLParameters params = s.getSSLParameters();
                params.setServerNames(List.of(new SNIHostName("admin.localhost")));
                s.setSSLParameters(params);
                s.startHandshake();
                served = (X509Certificate) s.getSession().getPeerCertificates()[0];
                login = exchange(s, "POST", "/api/login", "admin.localhost", "Origin: https://admin.localhost\r\n"
                        + "Content-Type: application/json\r\n", "{\"password\": \"" + PASSWORD + "\"}");
            }
            assertThat(served.getSubjectAlternativeNames().toString()).contains("admin.localhost");
            assertThat(login).startsWith("HTTP/1.1 200");
            String cookie = header(login, "set-cookie");
            assertThat(cookie).endsWith("; HttpOnly; SameSite=Strict; Path=/; Secure");
            try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1",
                    usher.httpsAddress().getPort())) {
                SSLParameters params = s.getSSLParameters();
                params.setServerNames(List.of(new SNIHostName("admin.localhost")));
                s.setSSLParameters(params);
                String sites = exchange(s, "GET", "/api/sites", "admin.localhost", "Cookie: "
                        + cookie.substring(0, cookie.indexOf(';')) + "\r\n", null);
                assertThat(sites).startsWith("HTTP/1.1 200").contains("\"name\":\"app.localhost\"")
                        .doesNotContain("\"name\":\"admin.localhost\"");
            }
            // plain HTTP to the admin name is redirected to HTTPS like any site's
            try (Socket plain = new Socket("127.0.0.1", usher.httpAddress().getPort())) {
                assertThat(exchange(plain, "GET", "/", "admin.localhost", "", null)).startsWith("HTTP/1.1 30");
            }
        }
    }

    @Test
    void theAdminSiteNeedsAPasswordAndAFixedPort() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConfigLoader.parse("""
                admin: {listen: "127.0.0.1:2019", site: admin.example.com}
                """, "a.yaml")).hasMessageContaining("needs a password");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ConfigLoader.parse("""
                admin: {listen: "127.0.0.1:0", site: admin.example.com, password: "%s"}
                """.formatted(HASH), "a.yaml")).hasMessageContaining("fixed port");
    }

    /** The test trusts any certificate; it checks the served name itself. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
