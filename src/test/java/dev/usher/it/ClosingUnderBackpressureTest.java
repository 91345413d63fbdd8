package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Once Usher decides to close after a response ("Connection: close", a 400, an early response), a client that never
 * reads that response must not keep the connection, its buffers and its connection slot: it is cut after the header
 * timeout.
 */
class ClosingUnderBackpressureTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        usher = servers.usher("""
                timeouts: {header: 1s, idle: 1s}
                limits: {connections: 1}
                sites:
                  fixed.example.com: {respond: {status: 200, body: "%s"}, timeouts: {write: 500ms}}
                """.formatted("y".repeat(4000)));
    }

    @Test
    void aConnectionWaitingToCloseIsCutWhenTheClientNeverReads() throws Exception {
        Socket stuck = new Socket();
        stuck.setReceiveBufferSize(4096);
        stuck.connect(new InetSocketAddress("127.0.0.1", usher.port()));
        // Enough responses to fill every buffer between Usher and a client that reads nothing, then one that closes.
        byte[] requests = ("GET / HTTP/1.1\r\nHost: fixed.example.com\r\n\r\n".repeat(3000)
                + "GET / HTTP/1.1\r\nHost: fixed.example.com\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = stuck.getOutputStream();
                out.write(requests);
                out.flush();
            } catch (IOException ignored) {
                // closed below
            }
        });
        writer.setDaemon(true);
        writer.start();
        writer.join(3000);
        Thread.sleep(4000); // well past the idle (1 s), header (1 s) and write (500 ms) timeouts
        try (RawHttp other = new RawHttp(usher.port())) {
            RawHttp.Response r = other.send("GET / HTTP/1.1\r\nHost: fixed.example.com\r\n\r\n").read();
            assertThat(r).as("a second client, once the stuck connection's slot should have been freed").isNotNull();
            assertThat(r.status()).isEqualTo(200);
        } finally {
            stuck.close();
        }
    }
}
