package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Backends that are down, slow or broken get clear answers, and none of it leaks into later requests. */
class FailuresTest {

    @Test
    void backendRefusingConnectionsGives502() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + closedPort + "\n");
             RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.body()).contains("could not be reached").doesNotContain(String.valueOf(closedPort));
            // A 502 for a complete request keeps the client connection usable.
            assertThat(http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status()).isEqualTo(502);
        }
    }

    @Test
    void slowBackendGives504AfterTheResponseTimeout() throws Exception {
        try (Whoami slow = Whoami.start("127.0.0.1", 0, "slow");
             RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: {to: \"127.0.0.1:" + slow.port()
                     + "\", timeouts: {response: 300ms}}\n");
             RawHttp http = new RawHttp(usher.port())) {
            long start = System.nanoTime();
            RawHttp.Response r = http.send("GET /?wait=3s HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(r.status()).isEqualTo(504);
            assertThat(tookMs).isLessThan(2500);
            // The slow backend's late answer must not be delivered as the answer to the next request.
            RawHttp.Response next = http.send("GET /fast HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
            assertThat(next.status()).isEqualTo(200);
            assertThat(next.body()).contains("GET /fast");
        }
    }

    @Test
    void theResponseTimeoutHoldsForEveryRequestOnAKeepAliveConnection() throws Exception {
        // One response timer serves the connection's exchanges in turn: armed by an earlier request, fired while
        // nothing waits, or firing during a later request, it must still end a slow one after the timeout.
        try (Whoami slow = Whoami.start("127.0.0.1", 0, "slow");
             RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: {to: \"127.0.0.1:" + slow.port()
                     + "\", timeouts: {response: 300ms}}\n");
             RawHttp http = new RawHttp(usher.port())) {
            for (long pauseMs : new long[] {0, 450, 150}) {
                assertThat(http.send("GET /fast HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status())
                        .isEqualTo(200);
                Thread.sleep(pauseMs);
                long start = System.nanoTime();
                RawHttp.Response r = http.send("GET /?wait=3s HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                assertThat(r.status()).as("after a pause of %d ms", pauseMs).isEqualTo(504);
                assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(2500);
            }
        }
    }

    @Test
    void backendResettingBeforeAnsweringGives502() throws Exception {
        try (ServerSocket rude = new ServerSocket(0)) {
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        Socket s = rude.accept();
                        s.getInputStream().read(new byte[1024]);
                        s.setSoLinger(true, 0);
                        s.close(); // RST
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            try (RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + rude.getLocalPort() + "\n");
                 RawHttp http = new RawHttp(usher.port())) {
                RawHttp.Response r = http.send("POST / HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 2\r\n\r\nhi").read();
                assertThat(r.status()).isEqualTo(502);
            }
            rude.close();
            t.join(2000);
        }
    }

    @Test
    void backendDyingMidResponseClosesTheClientConnection() throws Exception {
        try (ServerSocket half = new ServerSocket(0)) {
            Thread.ofVirtual().start(() -> {
                try (Socket s = half.accept()) {
                    s.getInputStream().read(new byte[4096]);
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\npartial".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException e) {
                    // done
                }
            });
            try (RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + half.getLocalPort() + "\n");
                 Socket client = new Socket("127.0.0.1", usher.port())) {
                client.setSoTimeout(5000);
                client.getOutputStream().write("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                byte[] all = in.readAllBytes(); // returns at EOF: Usher closed the connection
                String text = new String(all, StandardCharsets.US_ASCII);
                assertThat(text).startsWith("HTTP/1.1 200").endsWith("partial");
            }
        }
    }

    @Test
    void clientLeavingMidResponseDoesNotLeaveAHalfReadConnectionInThePool() throws Exception {
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + backend.port() + "\n")) {
            for (int i = 0; i < 5; i++) {
                try (Socket client = new Socket("127.0.0.1", usher.port())) {
                    client.getOutputStream().write("GET /data?size=20MiB HTTP/1.1\r\nHost: app.example.com\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    client.getInputStream().readNBytes(100_000);
                } // closed with most of the body unread
            }
            // Were a half-read connection pooled, these would get the tail of a 20 MiB body instead of an answer.
            try (RawHttp http = new RawHttp(usher.port())) {
                for (int i = 0; i < 20; i++) {
                    RawHttp.Response r = http.send("GET /n" + i + " HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.body()).contains("GET /n" + i + " ");
                }
            }
        }
    }

    @Test
    void staleKeepAliveConnectionIsRetriedOnceForIdempotentRequestsOnly() throws Exception {
        // Each connection answers one request, then reads the next and closes without a word: the race a backend
        // with a short keep-alive timeout loses when a request arrives just as it closes.
        try (ServerSocket oneShot = new ServerSocket(0)) {
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        Socket s = oneShot.accept();
                        Thread.ofVirtual().start(() -> {
                            try (s) {
                                s.getInputStream().read(new byte[4096]);
                                s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                                        .getBytes(StandardCharsets.US_ASCII));
                                s.getOutputStream().flush();
                                s.getInputStream().read(new byte[4096]);
                            } catch (IOException e) {
                                // done
                            }
                        });
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            try (RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + oneShot.getLocalPort() + "\n");
                 RawHttp http = new RawHttp(usher.port())) {
                for (int i = 0; i < 10; i++) {
                    RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read();
                    assertThat(r.status()).as("GET " + i).isEqualTo(200);
                }
                // A POST may have been acted on: it is not sent twice, the client hears of the failure instead.
                RawHttp.Response post = http.send("POST / HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 0\r\n\r\n").read();
                assertThat(post.status()).isEqualTo(502);
            }
        }
    }
}
