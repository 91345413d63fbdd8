package dev.usher.it;

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code crowdsec:} following {@link CrowdSecLocalApi}, a server started in the test that follows the CrowdSec local
 * API's documented {@code /v1/decisions/stream} contract: a ban added for 127.0.0.2 refuses its new connections and
 * the next request of one already open within the poll interval, a deleted one is served again; ranges and captcha
 * decisions; the bans last known kept while the local API is down, and followed again once it is back.
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

    /** Waits (up to 10 s: a few poll intervals) until a request from {@code from} gets {@code expected}. */
    void await(String from, int port, String expected) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
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

    RunningUsher usher(CrowdSecLocalApi api, String key) throws Exception {
        Whoami backend = servers.backend("app");
        Path keyFile = dir.resolve("crowdsec.key");
        Files.writeString(keyFile, key + "\n");
        return servers.usher("""
                crowdsec: {url: "http://127.0.0.1:%d", key_file: %s, interval: 1s}
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(api.port(), keyFile, backend.port()));
    }

    @Test
    void bansAddedAndDeletedInTheLocalApiAreFollowed() throws Exception {
        CrowdSecLocalApi api = servers.track(CrowdSecLocalApi.start(0, "bouncer-key-1"));
        RunningUsher usher = usher(api, "bouncer-key-1");
        int port = usher.port();
        assertThat(request("127.0.0.2", port)).startsWith("HTTP/1.1 200");
        try (Socket open = new Socket()) {
            open.bind(new InetSocketAddress("127.0.0.2", 0));
            open.connect(new InetSocketAddress("127.0.0.1", port));
            open.setSoTimeout(5000);
            assertThat(exchange(open)).startsWith("HTTP/1.1 200");
            api.add("Ip", "127.0.0.2", "ban");
            await("127.0.0.2", port, "closed");
            assertThat(exchange(open)).as("a connection opened before the ban").startsWith("HTTP/1.1 403");
        }
        assertThat(request("127.0.0.1", port)).as("others are served").startsWith("HTTP/1.1 200");
        api.add("Range", "127.0.0.8/29", "ban");
        api.add("Ip", "127.0.0.3", "captcha");
        await("127.0.0.9", port, "closed");
        await("127.0.0.3", port, "closed");
        assertThat(request("127.0.0.16", port)).startsWith("HTTP/1.1 200");
        api.delete("127.0.0.2");
        api.delete("127.0.0.8/29");
        await("127.0.0.2", port, "HTTP/1.1 200");
        await("127.0.0.9", port, "HTTP/1.1 200");
        assertThat(request("127.0.0.3", port)).isEqualTo("closed");
    }

    @Test
    void theBansLastKnownStayWhileTheLocalApiIsDown() throws Exception {
        CrowdSecLocalApi api = CrowdSecLocalApi.start(0, "bouncer-key-2");
        int apiPort = api.port();
        RunningUsher usher = usher(api, "bouncer-key-2");
        api.add("Ip", "127.0.0.2", "ban");
        await("127.0.0.2", usher.port(), "closed");
        api.close();
        Thread.sleep(3000); // several intervals' worth of failed pulls
        assertThat(request("127.0.0.2", usher.port())).isEqualTo("closed");
        assertThat(request("127.0.0.1", usher.port())).startsWith("HTTP/1.1 200");
        // Back, with the ban lifted meanwhile: the first pull after the outage asks for the whole list again.
        CrowdSecLocalApi back = servers.track(CrowdSecLocalApi.start(apiPort, "bouncer-key-2"));
        back.add("Ip", "127.0.0.4", "ban");
        await("127.0.0.2", usher.port(), "HTTP/1.1 200");
        await("127.0.0.4", usher.port(), "closed");
        assertThat(back.startupPulls.get()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void aRefusedKeyEnforcesNothingAndKeepsTrying() throws Exception {
        CrowdSecLocalApi api = servers.track(CrowdSecLocalApi.start(0, "the-right-key"));
        api.add("Ip", "127.0.0.2", "ban");
        RunningUsher usher = usher(api, "a-wrong-key");
        Thread.sleep(2500);
        assertThat(api.pulls.get()).as("no answer was given to a wrong key").isZero();
        assertThat(request("127.0.0.2", usher.port())).startsWith("HTTP/1.1 200");
    }
}
