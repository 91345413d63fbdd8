package dev.usher;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.reload.ReloadResult;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Start and reload build generations on one path; a commit is one swap, then what only the old one held closes. */
class GenerationSwapTest {
    @TempDir
    Path data;
    private Whoami a;
    private Whoami b;
    private Usher usher;

    @BeforeEach
    void backends() {
        a = Whoami.start("127.0.0.1", 0, "a");
        b = Whoami.start("127.0.0.1", 0, "b");
    }

    @AfterEach
    void stop() {
        if (usher != null) {
            usher.close();
        }
        a.close();
        b.close();
    }

    private UsherConfig config(int httpPort, int adminPort, Whoami backend) throws Exception {
        return ConfigLoader.parse("""
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:0"}
                http3: false
                admin: "127.0.0.1:%d"
                data: "%s"
                sites:
                  app.localhost: 127.0.0.1:%d
                  http://plain.localhost: 127.0.0.1:%d
                """.formatted(httpPort, adminPort, data, backend.port(), backend.port()), "test");
    }

    @Test
    void aReloadThatMovesNoAddressHandsOverEveryListenerAndTheCertificateManager() throws Exception {
        int admin = freePort();
        usher = Usher.start(config(0, admin, a), 1);
        Generation first = usher.generation();
        assertThat(get(usher.httpAddress().getPort(), "plain.localhost")).contains("Hostname: a");
        // The HTTP port was 0 in the file: the same address in both configs, so the same listener.
        ReloadResult result = usher.reload(config(0, admin, b));
        assertThat(result.ok()).isTrue();
        Generation second = usher.generation();
        assertThat(second).isNotSameAs(first);
        assertThat(second.http()).isSameAs(first.http());
        assertThat(second.https()).isSameAs(first.https());
        assertThat(second.admin()).isSameAs(first.admin());
        assertThat(second.certificates()).isSameAs(first.certificates());
        assertThat(second.plain()).isNotSameAs(first.plain());
        assertThat(second.secure()).isNotSameAs(first.secure());
        assertThat(result.changes().listeners()).isEmpty();
        assertThat(get(usher.httpAddress().getPort(), "plain.localhost")).contains("Hostname: b");
    }

    @Test
    void aMovedListenerIsBoundAnewAndTheOldOneStopsAcceptingWhileItsOpenConnectionIsServedByTheNewRoutes()
            throws Exception {
        int admin = freePort();
        int oldPort = freePort();
        usher = Usher.start(config(oldPort, admin, a), 1);
        try (Socket open = new Socket("127.0.0.1", oldPort)) {
            assertThat(request(open, "plain.localhost")).contains("Hostname: a");
            int newPort = freePort();
            ReloadResult result = usher.reload(config(newPort, admin, b));
            assertThat(result.ok()).isTrue();
            assertThat(result.changes().listeners()).containsExactly("http 127.0.0.1:" + newPort);
            assertThat(usher.httpAddress().getPort()).isEqualTo(newPort);
            assertThat(get(newPort, "plain.localhost")).contains("Hostname: b");
            assertThatThrownBy(() -> new Socket("127.0.0.1", oldPort).close()).isInstanceOf(ConnectException.class);
            // The connection the old listener accepted stays open, and its next request sees the new config.
            assertThat(request(open, "plain.localhost")).contains("Hostname: b");
        }
    }

    @Test
    void aPrepareThatFailsClosesWhatItBoundAndLeavesTheGenerationInServiceUntouched() throws Exception {
        int admin = freePort();
        usher = Usher.start(config(0, admin, a), 1);
        Generation before = usher.generation();
        int newHttp = freePort();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            // The HTTP listener is bound first, then the admin endpoint's port is taken: the whole reload fails.
            ReloadResult result = usher.reload(config(newHttp, taken.getLocalPort(), b));
            assertThat(result.ok()).isFalse();
            assertThat(result.errors().get(0).path()).isEqualTo("admin");
            assertThat(result.errors().get(0).message()).contains("already in use");
        }
        assertThat(usher.generation()).isSameAs(before);
        try (ServerSocket free = new ServerSocket()) {
            free.bind(new InetSocketAddress("127.0.0.1", newHttp)); // the half-made listener was closed
        }
        assertThat(get(usher.httpAddress().getPort(), "plain.localhost")).contains("Hostname: a");
    }

    @Test
    void aStoppedUsherClosedEveryPartAndRefusesReloads() throws Exception {
        int admin = freePort();
        usher = Usher.start(config(0, admin, a), 1);
        int http = usher.httpAddress().getPort();
        int https = usher.httpsAddress().getPort();
        usher.close();
        for (int port : new int[] {http, https, admin}) {
            try (ServerSocket free = new ServerSocket()) {
                free.bind(new InetSocketAddress("127.0.0.1", port));
            }
        }
        ReloadResult refused = usher.reload(config(0, admin, b));
        assertThat(refused.ok()).isFalse();
        assertThat(refused.errors().get(0).message()).isEqualTo("Usher is stopping");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
        }
    }

    private static String get(int port, String host) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return request(s, host);
        }
    }

    /** One keep-alive GET on {@code s}; the response head and its Content-Length body. */
    private static String request(Socket s, String host) throws IOException {
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
        StringBuilder text = new StringBuilder();
        int length = 0;
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
            text.append(line).append('\n');
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        char[] body = new char[length];
        int read = 0;
        while (read < length) {
            int n = in.read(body, read, length - read);
            if (n < 0) {
                break;
            }
            read += n;
        }
        return text.append('\n').append(body, 0, read).toString();
    }
}
