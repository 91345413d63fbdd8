package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Slowloris defences and the connection cap. */
class ClientLimitsTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("""
                timeouts: {header: 600ms, idle: 3s}
                limits: {connections: 4}
                sites:
                  app.example.com: 127.0.0.1:%d
                """.formatted(backend.port()));
    }

    @Test
    void aRequestHeadTrickledSlowlyGets408WithinTheHeaderTimeout() throws Exception {
        long seenBefore = backend.requestsSeen();
        try (RawHttp http = new RawHttp(usher.port())) {
            long start = System.nanoTime();
            String head = "GET / HTTP/1.1\r\nHost: app.example.com\r\nX-Slow: ";
            http.send(head);
            RawHttp.Response r = null;
            try {
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(150);
                    http.send("a"); // each byte arrives well within any idle timeout
                }
            } catch (java.io.IOException closed) {
                // Usher closed the connection while we trickled.
            }
            r = http.read();
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(r).isNotNull();
            assertThat(r.status()).isEqualTo(408);
            assertThat(ms).as("the header timeout, shorter than the idle one, applies").isLessThan(2500);
        }
        assertThat(backend.requestsSeen()).isEqualTo(seenBefore);
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            assertThat(http.closedByServer()).isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(2500L, 6000L);
        }
    }

    @Test
    void connectionsOverTheCapAreClosedAtAccept() throws Exception {
        Thread.sleep(300); // let connections of other tests finish closing
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Socket s = new Socket("127.0.0.1", usher.port());
                held.add(s);
                s.getOutputStream().write("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(5000);
                WebsocketTest.readHead(s.getInputStream());
            }
            try (Socket extra = new Socket("127.0.0.1", usher.port())) {
                extra.setSoTimeout(5000);
                OutputStream out = extra.getOutputStream();
                InputStream in = extra.getInputStream();
                int first;
                try {
                    out.write("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    first = in.read();
                } catch (java.io.IOException reset) {
                    first = -1;
                }
                assertThat(first).isEqualTo(-1);
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        // Once they are closed, new connections are served again.
        Thread.sleep(200);
        try (RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status()).isEqualTo(200);
        }
    }
}
