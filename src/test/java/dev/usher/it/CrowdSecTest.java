package dev.usher.it;

import dev.usher.testing.CrowdSec;
import dev.usher.testing.LogCapture;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code crowdsec:} against a real CrowdSec local API ({@link CrowdSec}: Debian's crowdsec run with {@code -no-cs},
 * decisions made with the real {@code cscli}): a ban refuses its new connections and the next request of one already
 * open within the poll interval, a deleted one is served again; ranges and captcha decisions; the bans last known are
 * kept while the local API is down, which is logged once, and followed again once it is back; a refused key.
 */
class CrowdSecTest {
    @RegisterExtension
    final Servers servers = new Servers();

    @TempDir
    Path dir;

    /** What one request from {@code from} gets: the status line, or "closed" when the connection is cut. */
    String request(String from, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(5000);
            return exchange(s);
        }
    }

    static String exchange(Socket s) throws IOException {
        try {
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                line.append((char) c);
            }
            if (line.isEmpty()) {
                return "closed";
            }
            // The rest of a short answer: whoami's and the 403 both fit in one read.
            in.read(new byte[65536]);
            return line.toString();
        } catch (IOException reset) {
            return "closed";
        }
    }

    /** Waits (up to 15 s: a few poll intervals) until a request from {@code from} gets {@code expected}. */
    void await(String from, int port, String expected) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        String last = null;
        while (System.nanoTime() < deadline) {
            last = request(from, port);
            if (last.startsWith(expected)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("from " + from + " expected " + expected + ", last got " + last);
    }

    CrowdSec localApi() throws IOException {
        return servers.track(CrowdSec.start(dir.resolve("crowdsec")));
    }

    RunningUsher usher(CrowdSec api, String key) throws Exception {
        Whoami backend = servers.backend("app");
        Path keyFile = dir.resolve("crowdsec.key");
        Files.writeString(keyFile, key + "\n");
        return servers.usher("""
                crowdsec: {url: "http://127.0.0.1:%d", key_file: %s, interval: 1s}
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(api.port(), keyFile, backend.port()));
    }

    /** The lines logged about this local API at {@code level}. */
    static List<String> logged(LogCapture logs, CrowdSec api, String level) {
        return logs.records.stream()
                .filter(r -> r.startsWith(level + " ") && r.contains("CrowdSec local API http://127.0.0.1:" + api.port()))
                .toList();
    }

    @Test
    void bansAddedAndDeletedWithCscliAreFollowed() throws Exception {
        CrowdSec api = localApi();
        RunningUsher usher = usher(api, api.addBouncer("usher"));
        int port = usher.port();
        assertThat(request("127.0.0.2", port)).startsWith("HTTP/1.1 200");
        try (Socket open = new Socket()) {
            open.bind(new InetSocketAddress("127.0.0.2", 0));
            open.connect(new InetSocketAddress("127.0.0.1", port));
            open.setSoTimeout(5000);
            assertThat(exchange(open)).startsWith("HTTP/1.1 200");
            api.addDecision("127.0.0.2", "ban");
            await("127.0.0.2", port, "closed");
            assertThat(exchange(open)).as("a connection opened before the ban").startsWith("HTTP/1.1 403");
        }
        assertThat(request("127.0.0.1", port)).as("others are served").startsWith("HTTP/1.1 200");
        api.addDecision("127.0.0.8/29", "ban");
        api.addDecision("127.0.0.3", "captcha");
        await("127.0.0.9", port, "closed");
        await("127.0.0.3", port, "closed");
        assertThat(request("127.0.0.16", port)).startsWith("HTTP/1.1 200");
        api.deleteDecision("127.0.0.2");
        api.deleteDecision("127.0.0.8/29");
        await("127.0.0.2", port, "HTTP/1.1 200");
        await("127.0.0.9", port, "HTTP/1.1 200");
        assertThat(request("127.0.0.3", port)).isEqualTo("closed");
    }

    @Test
    void theBansLastKnownStayWhileTheLocalApiIsDownWhichIsLoggedOnce() throws Exception {
        CrowdSec api = localApi();
        try (LogCapture logs = new LogCapture()) {
            RunningUsher usher = usher(api, api.addBouncer("usher"));
            api.addDecision("127.0.0.2", "ban");
            await("127.0.0.2", usher.port(), "closed");
            api.stop();
            Thread.sleep(5000); // failed pulls at 1 s, 2 s (the backoff's first steps)
            assertThat(request("127.0.0.2", usher.port())).isEqualTo("closed");
            assertThat(request("127.0.0.1", usher.port())).startsWith("HTTP/1.1 200");
            assertThat(logged(logs, api, "WARNING")).as("the outage, logged once").hasSize(1)
                    .allSatisfy(line -> assertThat(line).contains("keeping the 1 bans known"));

            // Back; the ban lifted and another made since: both followed, and the return logged once.
            api.start();
            api.deleteDecision("127.0.0.2");
            api.addDecision("127.0.0.4", "ban");
            await("127.0.0.2", usher.port(), "HTTP/1.1 200");
            await("127.0.0.4", usher.port(), "closed");
            assertThat(logged(logs, api, "WARNING")).hasSize(1);
            assertThat(logged(logs, api, "INFO")).as("the return").hasSize(1)
                    .allSatisfy(line -> assertThat(line).contains("decisions enforced"));
        }
    }

    @Test
    void aRefusedKeyEnforcesNothingAndSaysWhy() throws Exception {
        CrowdSec api = localApi();
        api.addBouncer("usher");
        api.addDecision("127.0.0.2", "ban");
        try (LogCapture logs = new LogCapture()) {
            RunningUsher usher = usher(api, "a-wrong-key");
            Thread.sleep(2500);
            assertThat(request("127.0.0.2", usher.port())).startsWith("HTTP/1.1 200");
            assertThat(logged(logs, api, "WARNING")).hasSize(1)
                    .allSatisfy(line -> assertThat(line).contains("the bouncer key was refused (HTTP 403"));
        }
    }
}
