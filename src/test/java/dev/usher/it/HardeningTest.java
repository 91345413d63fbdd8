package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Attacks and abuse found in review: each of these failed before its fix. */
class HardeningTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;
    static final String BODY = "x".repeat(1000);

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("""
                sites:
                  app.example.com: 127.0.0.1:%d
                  fixed.example.com: {respond: {status: 200, body: "%s"}}
                  small.example.com: {to: 127.0.0.1:%1$d, max_body: 1KiB}
                """.formatted(backend.port(), BODY));
    }

    @org.junit.jupiter.api.Test
    void aBodyOverTheLimitAfterTheAnswerStartedCutsTheConnectionInsteadOfSplicingAnErrorPageIn() throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: small.example.com\r\nContent-Type: text/plain\r\n"
                    + "Accept-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String chunk = "a".repeat(600);
            out.write(("258\r\n" + chunk + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(300); // the echo's answer is under way
            try {
                out.write(("258\r\n" + chunk + "\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException closed) {
                // already cut
            }
            byte[] all = s.getInputStream().readAllBytes(); // ends when Usher closes the connection
            String text = new String(all, StandardCharsets.ISO_8859_1);
            assertThat(text).startsWith("HTTP/1.1 200");
            assertThat(text).as("no second status line, no terminating chunk").doesNotContain("HTTP/1.1 413")
                    .doesNotEndWith("0\r\n\r\n");
        }
    }

    @org.junit.jupiter.api.Test
    void h2cUpgradeIsNotPassedThrough() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body().toLowerCase()).doesNotContain("upgrade").doesNotContain("http2-settings");
        }
    }

    @org.junit.jupiter.api.Test
    void transferCodingsOtherThanChunkedAreRefused() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("POST / HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                    + "0\r\n\r\n").read().status()).isEqualTo(400);
        }
    }

    /** Local answers (404, 403, redirects, fixed answers) wait while the client does not read them. */
    @Test
    void aClientThatReadsNothingCannotMakeUsherBufferLocalAnswersWithoutLimit() throws Exception {
        long before = PlatformDependent.usedDirectMemory();
        Socket s = new Socket();
        s.setReceiveBufferSize(4096);
        s.connect(new InetSocketAddress("127.0.0.1", usher.port()));
        byte[] batch = "GET / HTTP/1.1\r\nHost: fixed.example.com\r\n\r\n".repeat(1000)
                .getBytes(StandardCharsets.US_ASCII);
        Thread writer = new Thread(() -> {
            try {
                OutputStream out = s.getOutputStream();
                for (int i = 0; i < 20; i++) {
                    out.write(batch);
                }
                out.flush();
            } catch (IOException ignored) {
                // closed below
            }
        });
        writer.setDaemon(true);
        writer.start();
        writer.join(5000);
        Thread.sleep(1000);
        long grown = PlatformDependent.usedDirectMemory() - before;
        s.close();
        assertThat(grown).as("direct memory Usher holds for one client that reads nothing").isLessThan(8L << 20);
    }

    /** obs-fold is refused even when the folded line arrives in a later read. */
    @Test
    void obsFoldSplitAcrossTwoReadsIsStillRefused() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            http.socket.setTcpNoDelay(true);
            http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\nX-Folded: a\r\n");
            Thread.sleep(300);
            http.send(" b\r\n\r\n");
            RawHttp.Response r = http.read();
            assertThat(r.status()).isEqualTo(400);
        }
    }

    /** Host must be a name or address and an optional port: nothing else reaches a backend. */
    @Test
    void hostWithJunkAfterTheColonIsRefused() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: app.example.com:80@admin.example.com\r\n\r\n")
                    .read();
            assertThat(r.status()).isEqualTo(400);
        }
    }

    /** Forwarded (RFC 7239), X-Forwarded-Port and the like from an untrusted client are dropped. */
    @Test
    void clientForwardedHeaderDoesNotReachTheBackend() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            String seen = http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n"
                    + "Forwarded: for=6.6.6.6;proto=https;host=admin.example.com\r\nX-Forwarded-Port: 6666\r\n\r\n")
                    .read().body();
            assertThat(seen).doesNotContain("6.6.6.6").doesNotContain("6666");
        }
    }

}
