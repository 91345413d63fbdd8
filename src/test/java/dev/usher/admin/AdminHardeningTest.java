package dev.usher.admin;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin endpoint against attacks and mishaps found in review: password guessing (in parallel, or with the
 * Bearer header instead of the login form), sessions that outlive a password change, what strangers may learn,
 * framing, CSRF on the tools' routes, restores that reach outside the data directory or leave keys readable, and
 * writes that fail half-way.
 */
class AdminHardeningTest {
    private static final String PASSWORD = "correct horse battery";
    private static final String HASH = OpenBSDBCrypt.generate(PASSWORD.toCharArray(), new byte[16], 4);

    @TempDir
    Path folder;

    private Path file;

    private Usher start(String admin) throws Exception {
        file = folder.resolve("usher.yaml");
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

    private Usher startWithPassword(String hash) throws Exception {
        return start("{listen: \"127.0.0.1:0\", password: \"" + hash + "\"}");
    }

    /** One request on a new connection to the admin port; the whole answer. */
    private static String send(Usher usher, String method, String path, String headers, String body)
            throws Exception {
        return send(usher, method, path, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    private static String send(Usher usher, String method, String path, String headers, byte[] content)
            throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.adminAddress().getPort())) {
            s.setSoTimeout(10_000);
            byte[] body = content == null ? new byte[0] : content;
            OutputStream out = s.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" + headers
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
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

    /** Logs in; the Cookie header line and the CSRF token. */
    private static String[] login(Usher usher) throws Exception {
        String login = send(usher, "POST", "/api/login", "Content-Type: application/json\r\n",
                "{\"password\": \"" + PASSWORD + "\"}");
        assertThat(login).startsWith("HTTP/1.1 200");
        String cookie = header(login, "set-cookie");
        return new String[] {"Cookie: " + cookie.substring(0, cookie.indexOf(';')) + "\r\n",
                AdminApiTest.field(login, "csrf")};
    }

    @Test
    void wrongPasswordsSentAllAtOnceAreAllCounted() throws Exception {
        // a slow hash (as in production), so that the attempts overlap while each is checked
        String slow = OpenBSDBCrypt.generate(PASSWORD.toCharArray(), new byte[16], 10);
        try (Usher usher = startWithPassword(slow)) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    String guess = "{\"password\": \"guess" + i + "\"}";
                    answers.add(pool.submit((Callable<String>) () -> send(usher, "POST", "/api/login", "", guess)));
                }
                int checked = 0;
                for (Future<String> a : answers) {
                    String answer = a.get();
                    assertThat(answer).matches("(?s)HTTP/1.1 (401|429).*");
                    checked += answer.startsWith("HTTP/1.1 401") ? 1 : 0;
                }
                assertThat(checked).as("passwords checked of 16 sent at once").isEqualTo(Sessions.FAILURES_ALLOWED);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void guessingWithTheBearerHeaderIsThrottledLikeTheLoginForm() throws Exception {
        try (Usher usher = startWithPassword(HASH)) {
            for (int i = 0; i < Sessions.FAILURES_ALLOWED; i++) {
                assertThat(send(usher, "GET", "/api/sites", "Authorization: Bearer guess" + i + "\r\n", (String) null))
                        .startsWith("HTTP/1.1 401");
            }
            assertThat(send(usher, "GET", "/health", "Authorization: Basic "
                    + java.util.Base64.getEncoder().encodeToString(("x:" + PASSWORD).getBytes(StandardCharsets.UTF_8))
                    + "\r\n", (String) null)).as("even the right password waits after too many wrong ones")
                    .startsWith("HTTP/1.1 429");
            assertThat(send(usher, "POST", "/api/login", "", "{\"password\": \"" + PASSWORD + "\"}"))
                    .startsWith("HTTP/1.1 429");
        }
    }

    @Test
    void aPasswordChangedByReloadEndsTheSessionsOfTheOldOne() throws Exception {
        try (Usher usher = startWithPassword(HASH)) {
            String[] session = login(usher);
            assertThat(send(usher, "GET", "/api/sites", session[0], (String) null)).startsWith("HTTP/1.1 200");
            String other = OpenBSDBCrypt.generate("another password".toCharArray(), new byte[16], 4);
            Files.writeString(file, Files.readString(file).replace(HASH, other));
            assertThat(send(usher, "POST", "/api/reload", session[0] + "X-Usher-CSRF: " + session[1] + "\r\n", ""))
                    .startsWith("HTTP/1.1 200");
            assertThat(send(usher, "GET", "/api/sites", session[0], (String) null))
                    .as("a session of the old password").startsWith("HTTP/1.1 401");
            assertThat(send(usher, "GET", "/api/session", session[0], (String) null)).contains("\"logged_in\":false");
        }
    }

    @Test
    void strangersDoNotLearnTheConfigPath() throws Exception {
        try (Usher usher = startWithPassword(HASH)) {
            assertThat(send(usher, "GET", "/api/session", "", (String) null)).contains("\"config_file\":null");
            String[] session = login(usher);
            assertThat(send(usher, "GET", "/api/session", session[0], (String) null))
                    .contains("\"config_file\":" + Json.string(file.toAbsolutePath().toString()));
        }
    }

    @Test
    void noAnswerMayBeFramedSniffedOrCached() throws Exception {
        try (Usher usher = startWithPassword(HASH)) {
            String stranger = send(usher, "GET", "/api/session", "", (String) null);
            String[] session = login(usher);
            for (String answer : List.of(stranger, send(usher, "GET", "/api/sites", session[0], (String) null),
                    send(usher, "GET", "/health", "Authorization: Bearer " + PASSWORD + "\r\n", (String) null))) {
                assertThat(header(answer, "content-security-policy")).contains("frame-ancestors 'none'");
                assertThat(header(answer, "x-frame-options")).isEqualTo("DENY");
                assertThat(header(answer, "x-content-type-options")).isEqualTo("nosniff");
                assertThat(header(answer, "cache-control")).isEqualTo("no-store");
            }
        }
    }

    @Test
    void theToolsRoutesNeedTheCsrfTokenWhenASessionCookieAuthorizesThem() throws Exception {
        try (Usher usher = startWithPassword(HASH)) {
            String[] session = login(usher);
            assertThat(send(usher, "POST", "/reload", session[0], "")).startsWith("HTTP/1.1 403");
            assertThat(send(usher, "POST", "/certificates/app.localhost/renew", session[0], ""))
                    .startsWith("HTTP/1.1 403");
            assertThat(send(usher, "POST", "/reload", session[0] + "X-Usher-CSRF: " + session[1] + "\r\n", ""))
                    .startsWith("HTTP/1.1 200");
            assertThat(send(usher, "POST", "/reload", "Authorization: Bearer " + PASSWORD + "\r\n", ""))
                    .as("tools with the secret need no token").startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void aRestoreNeverWritesOutsideTheRunningDataDirectory() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\"")) {
            Path elsewhere = folder.resolve("elsewhere");
            byte[] config = Files.readString(file).replace("data: ./data", "data: " + elsewhere)
                    .getBytes(StandardCharsets.UTF_8);
            byte[] archive = TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false, config),
                    new TarGz.Entry("data/planted.txt", 0644, 0, false, "x".getBytes(StandardCharsets.UTF_8))));
            byte[] before = Files.readAllBytes(file);
            String answer = restore(usher, archive);
            assertThat(answer).startsWith("HTTP/1.1 422").contains("data");
            assertThat(elsewhere.resolve("planted.txt")).doesNotExist();
            assertThat(Files.readAllBytes(file)).isEqualTo(before);
        }
    }

    @Test
    void restoredKeysArePrivateWhateverTheArchiveSays() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\"")) {
            byte[] archive = TarGz.bytes(List.of(
                    new TarGz.Entry("usher.yaml", 0644, 0, false, Files.readAllBytes(file)),
                    new TarGz.Entry("data/extra/other.key", 0644, 0, false, "k".getBytes(StandardCharsets.UTF_8)),
                    new TarGz.Entry("data/extra/other.crt", 0644, 0, false, "c".getBytes(StandardCharsets.UTF_8))));
            assertThat(restore(usher, archive)).startsWith("HTTP/1.1 200");
            Path data = folder.resolve("data/extra");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("other.key"))))
                    .isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.resolve("other.crt"))))
                    .isEqualTo("rw-r--r--");
        }
    }

    @Test
    void aWriteWhoseReloadFailsLeavesTheNumberedBackupsAsTheyWere() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\""); ServerSocket taken = new ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            String original = Files.readString(file);
            // one good write: backup 1 is the original file
            String edited = original.replace("127.0.0.1:9", "127.0.0.1:10");
            assertThat(restore(usher, TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false,
                    edited.getBytes(StandardCharsets.UTF_8)))))).startsWith("HTTP/1.1 200");
            Path backups = folder.resolve("data/config-backups");
            assertThat(Files.readString(backups.resolve("usher.yaml.1"))).isEqualTo(original);
            // valid, but its listener cannot be bound: the reload fails and the file is put back
            String unbindable = edited.replace("http: \"127.0.0.1:0\"", "http: \"127.0.0.1:" + taken.getLocalPort()
                    + "\"");
            assertThat(restore(usher, TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false,
                    unbindable.getBytes(StandardCharsets.UTF_8)))))).startsWith("HTTP/1.1 422");
            assertThat(Files.readString(file)).isEqualTo(edited);
            assertThat(Files.readString(backups.resolve("usher.yaml.1")))
                    .as("backup 1 is still the file before the last write that stuck").isEqualTo(original);
            try (var names = Files.list(backups)) {
                assertThat(names.map(p -> p.getFileName().toString())).containsExactly("usher.yaml.1");
            }
        }
    }

    @Test
    void aRestoreWhoseReloadFailsPutsTheDataFilesBack() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\""); ServerSocket taken = new ServerSocket(0, 50,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            Path data = folder.resolve("data");
            Files.writeString(data.resolve("kept.txt"), "old");
            byte[] unbindable = Files.readString(file).replace("http: \"127.0.0.1:0\"", "http: \"127.0.0.1:"
                    + taken.getLocalPort() + "\"").getBytes(StandardCharsets.UTF_8);
            byte[] before = Files.readAllBytes(file);
            String answer = restore(usher, TarGz.bytes(List.of(
                    new TarGz.Entry("usher.yaml", 0600, 0, false, unbindable),
                    new TarGz.Entry("data/kept.txt", 0644, 0, false, "new".getBytes(StandardCharsets.UTF_8)),
                    new TarGz.Entry("data/fresh.txt", 0644, 0, false, "new".getBytes(StandardCharsets.UTF_8)))));
            assertThat(answer).startsWith("HTTP/1.1 422");
            assertThat(Files.readAllBytes(file)).isEqualTo(before);
            assertThat(Files.readString(data.resolve("kept.txt"))).isEqualTo("old");
            assertThat(data.resolve("fresh.txt")).doesNotExist();
        }
    }

    @Test
    void aReadOnlyConfigFileIsRefusedAndKeptAsItIs() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\"")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
            byte[] before = Files.readAllBytes(file);
            String csrf = AdminApiTest.field(send(usher, "GET", "/api/session", "", (String) null), "csrf");
            String answer = send(usher, "DELETE", "/api/sites/app.localhost", "X-Usher-CSRF: " + csrf
                    + "\r\nIf-Match: " + ConfigFile.version(before) + "\r\n", (String) null);
            assertThat(answer).startsWith("HTTP/1.1 409").contains("read-only");
            assertThat(Files.readAllBytes(file)).isEqualTo(before);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("r--r--r--");
            assertThat(folder.resolve("data/config-backups/usher.yaml.1")).doesNotExist();
        }
    }

    @Test
    void aRestoreRefusesAnArchiveWithANameTwice() throws Exception {
        try (Usher usher = start("\"127.0.0.1:0\"")) {
            byte[] before = Files.readAllBytes(file);
            byte[] other = Files.readString(file).replace("127.0.0.1:9", "127.0.0.1:10")
                    .getBytes(StandardCharsets.UTF_8);
            String twice = restore(usher, TarGz.bytes(List.of(new TarGz.Entry("usher.yaml", 0600, 0, false, before),
                    new TarGz.Entry("usher.yaml", 0600, 0, false, other))));
            assertThat(twice).startsWith("HTTP/1.1 422").contains("twice");
            String fileAndFolder = restore(usher, TarGz.bytes(List.of(
                    new TarGz.Entry("usher.yaml", 0600, 0, false, before),
                    new TarGz.Entry("data/x", 0600, 0, false, "x".getBytes(StandardCharsets.UTF_8)),
                    new TarGz.Entry("data/x", 0700, 0, true, new byte[0]))));
            assertThat(fileAndFolder).startsWith("HTTP/1.1 422").contains("twice");
            assertThat(Files.readAllBytes(file)).isEqualTo(before);
            assertThat(folder.resolve("data/x")).doesNotExist();
        }
    }

    /**
     * Behind a trusted proxy (a CDN) the admin site's requests all come from the proxy's address: the throttle
     * must count the client Usher determined, not the last X-Forwarded-For hop (the proxy), or one guesser locks
     * every admin out.
     */
    @Test
    void theAdminSiteBehindATrustedProxyThrottlesEachClientApart() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        file = folder.resolve("usher.yaml");
        Files.writeString(file, """
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: {listen: "127.0.0.1:%d", password: "%s", site: admin.localhost}
                trusted_proxies: [127.0.0.1/32]
                data: ./data
                sites:
                  app.localhost: 127.0.0.1:9
                """.formatted(port, HASH));
        try (Usher usher = Usher.start(ConfigLoader.load(file), 1)) {
            javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
            tls.init(null, new javax.net.ssl.TrustManager[] {new javax.net.ssl.X509TrustManager() {
                @Override
                public void checkClientTrusted(java.security.cert.X509Certificate[] c, String a) {
                }

                @Override
                public void checkServerTrusted(java.security.cert.X509Certificate[] c, String a) {
                }

                @Override
                public java.security.cert.X509Certificate[] getAcceptedIssuers() {
                    return new java.security.cert.X509Certificate[0];
                }
            }}, null);
            for (int i = 0; i < Sessions.FAILURES_ALLOWED; i++) {
                assertThat(loginThroughTheSite(usher, tls, "198.51.100.7", "guess" + i)).startsWith("HTTP/1.1 401");
            }
            assertThat(loginThroughTheSite(usher, tls, "198.51.100.7", PASSWORD)).startsWith("HTTP/1.1 429");
            assertThat(loginThroughTheSite(usher, tls, "198.51.100.8", PASSWORD))
                    .as("another client behind the same proxy").startsWith("HTTP/1.1 200");
        }
    }

    private static String loginThroughTheSite(Usher usher, javax.net.ssl.SSLContext tls, String client,
                                              String password) throws Exception {
        try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1",
                usher.httpsAddress().getPort())) {
            javax.net.ssl.SSLParameters params = s.getSSLParameters();
            params.setServerNames(List.of(new javax.net.ssl.SNIHostName("admin.localhost")));
            s.setSSLParameters(params);
            s.setSoTimeout(10_000);
            byte[] body = ("{\"password\": \"" + password + "\"}").getBytes(StandardCharsets.UTF_8);
            OutputStream out = s.getOutputStream();
            out.write(("POST /api/login HTTP/1.1\r\nHost: admin.localhost\r\nConnection: close\r\n"
                    + "X-Forwarded-For: " + client + "\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(body);
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private String restore(Usher usher, byte[] archive) throws Exception {
        String csrf = AdminApiTest.field(send(usher, "GET", "/api/session", "", (String) null), "csrf");
        return send(usher, "POST", "/api/restore", "X-Usher-CSRF: " + csrf + "\r\nIf-Match: "
                + ConfigFile.version(Files.readAllBytes(file)) + "\r\nContent-Type: application/gzip\r\n", archive);
    }
}
