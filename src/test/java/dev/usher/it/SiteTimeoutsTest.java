package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-site read, write and websocket idle timeouts. */
class SiteTimeoutsTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("""
                sites:
                  t.example.com: {to: 127.0.0.1:%1$d, timeouts: {read: 700ms, write: 700ms, websocket: 700ms}}
                  short.example.com: {to: 127.0.0.1:%1$d, timeouts: {idle: 500ms}}
                """.formatted(backend.port()));
    }

    @Test
    void aRequestBodyThatStopsArrivingIsCutAfterTheReadTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("POST /echo HTTP/1.1\r\nHost: t.example.com\r\nContent-Length: 1000\r\n\r\n"
                    + "only part of it").getBytes(StandardCharsets.US_ASCII));
            long start = System.nanoTime();
            InputStream in = s.getInputStream();
            in.readAllBytes(); // until Usher closes
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).isBetween(500L, 4000L);
        }
    }

    @Test
    void aClientThatStopsReadingIsCutAfterTheWriteTimeout() throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.port())) {
            s.setReceiveBufferSize(16 * 1024);
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /data?size=1GiB HTTP/1.1\r\nHost: t.example.com\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(3000); // not reading: buffers fill, Usher's writes stall for longer than 700 ms
            InputStream in = s.getInputStream();
            long read = 0;
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                read += n;
            }
            assertThat(read).as("bytes before Usher closed").isLessThan(100L * 1024 * 1024);
        }
    }

    @Test
    void aSitesOwnKeepAliveIdleTimeoutAppliesAfterItsResponses() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: short.example.com\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(http.closedByServer()).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(300L, 3000L);
        }
        // The other site keeps the global 60 s: its connection is still open after 1.5 s.
        try (RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: t.example.com\r\n\r\n").read().status()).isEqualTo(200);
            http.socket.setSoTimeout(1500);
            assertThat(http.closedByServer()).isFalse();
        }
    }

    @Test
    void anIdleWebsocketIsClosedAfterItsIdleTimeout() throws Exception {
        try (Socket client = new Socket("127.0.0.1", usher.port())) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: t.example.com\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(WebsocketTest.readHead(client.getInputStream())).startsWith("HTTP/1.1 101");
            long start = System.nanoTime();
            assertThat(client.getInputStream().read()).isEqualTo(-1);
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(400L, 4000L);
        }
    }
}
