package dev.usher.it;

import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How HTTP/2 streams end when the request misbehaves, frame by frame: a request body that stops arriving (the
 * site's read timeout: 408, or a reset once the answer has begun, and no stuck backend connection), a header block
 * over {@code limits.header_size} (431 from the codec, or GOAWAY when far over), and a local answer given before
 * the body is in (RST_STREAM NO_ERROR after the complete answer). Each time, the connection goes on.
 */
class Http2RequestLimitsTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static final int NO_ERROR = 0, PROTOCOL_ERROR = 1, CANCEL = 8;
    static final int END_STREAM = 0x1;
    /** Only for slow.test, so its open connections are the stalled exchanges' alone. */
    static Whoami stalled;
    static Whoami backend;
    static TlsTestServer usher;

    @BeforeAll
    static void start() throws Exception {
        stalled = servers.backend("stalled");
        backend = servers.backend("limits");
        usher = servers.track(TlsTestServer.start("""
                limits: {header_size: 4KiB}
                sites:
                  slow.test: {to: 127.0.0.1:%d, timeouts: {read: 1s}}
                  app.test: 127.0.0.1:%d
                """.formatted(stalled.port(), backend.port())));
    }

    static Http2Headers request(String method, String host, String path) {
        return new DefaultHttp2Headers().method(method).scheme("https").authority(host).path(path);
    }

    /** The next frame of {@code type} on {@code stream}, or the end of the connection (type -1). */
    static RawH2Client.Frame await(RawH2Client client, int type, int stream) throws Exception {
        RawH2Client.Frame f;
        do {
            f = client.await(type);
        } while (f.type() != -1 && f.stream() != stream);
        return f;
    }

    static void assertConnectionStillServes(RawH2Client client, int stream) throws Exception {
        client.headers(stream, request("GET", "app.test", "/"), true);
        RawH2Client.Frame ok = await(client, RawH2Client.HEADERS, stream);
        assertThat(ok.type()).as("a new stream on the same connection").isEqualTo(RawH2Client.HEADERS);
        assertThat(client.decode(ok).status().toString()).isEqualTo("200");
    }

    @Test
    void requestBodyThatNeverComesGets408AndTheBackendConnectionIsClosed() throws Exception {
        long seen = stalled.requestsSeen();
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, request("POST", "slow.test", "/").add("content-length", "1000"), false);
            long start = System.nanoTime();
            // The head went to the backend, on a connection of its own that now waits for the body.
            Http2Test.awaitTrue(() -> stalled.requestsSeen() == seen + 1, 3000);
            RawH2Client.Frame answer = await(client, RawH2Client.HEADERS, 1);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(answer.type()).isEqualTo(RawH2Client.HEADERS);
            assertThat(client.decode(answer).status().toString()).isEqualTo("408");
            assertThat(millis).isBetween(800L, 3000L);
            RawH2Client.Frame reset = await(client, RawH2Client.RST_STREAM, 1);
            assertThat(reset.type()).as("the answer is followed by a reset").isEqualTo(RawH2Client.RST_STREAM);
            assertThat(reset.errorCode()).isEqualTo(NO_ERROR);
            // The backend connection holds half a request: closed, not pooled.
            Http2Test.awaitTrue(() -> stalled.openConnections() == 0, 3000);
            assertConnectionStillServes(client, 3);
        }
    }

    @Test
    void requestBodyThatStopsMidwayIsCutAfterTheReadTimeout() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            // /echo answers at once, so the response has begun when the body stalls: only a reset is left.
            client.headers(1, request("POST", "slow.test", "/echo").add("content-length", "1000"), false);
            for (int i = 0; i < 3; i++) {
                client.frame(RawH2Client.DATA, 0, 1, "some of it ".getBytes(StandardCharsets.US_ASCII));
                Thread.sleep(500); // trickling within the timeout keeps the stream
            }
            long start = System.nanoTime();
            RawH2Client.Frame answer = await(client, RawH2Client.HEADERS, 1);
            assertThat(client.decode(answer).status().toString()).isEqualTo("200");
            RawH2Client.Frame reset = await(client, RawH2Client.RST_STREAM, 1);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(reset.type()).isEqualTo(RawH2Client.RST_STREAM);
            assertThat(reset.errorCode()).isEqualTo(CANCEL);
            assertThat(millis).isBetween(300L, 3000L);
            Http2Test.awaitTrue(() -> stalled.openConnections() == 0, 3000);
            assertConnectionStillServes(client, 3);
        }
    }

    @Test
    void headerBlockOverTheLimitGets431AndNeverReachesTheBackend() throws Exception {
        long seen = backend.requestsSeen();
        try (RawH2Client client = new RawH2Client(usher.port())) {
            // 6000 characters decode past 4 KiB but HPACK-encode to about 3.7 KB (under Netty's 1.25 x cut-off):
            // Netty decodes the block (keeping HPACK state), answers 431 and resets the stream.
            client.headers(1, request("GET", "app.test", "/").add("x-big", huffmanFriendly(6000)), true);
            RawH2Client.Frame answer = await(client, RawH2Client.HEADERS, 1);
            assertThat(answer.type()).isEqualTo(RawH2Client.HEADERS);
            assertThat(client.decode(answer).status().toString()).isEqualTo("431");
            assertThat(answer.flags() & END_STREAM).isEqualTo(END_STREAM);
            RawH2Client.Frame reset = await(client, RawH2Client.RST_STREAM, 1);
            assertThat(reset.errorCode()).isEqualTo(PROTOCOL_ERROR);
            assertConnectionStillServes(client, 3);
        }
        assertThat(backend.requestsSeen() - seen).as("only the request after it").isEqualTo(1);
    }

    @Test
    void headerBlockFarOverTheLimitEndsTheConnection() throws Exception {
        long seen = backend.requestsSeen();
        try (RawH2Client client = new RawH2Client(usher.port())) {
            // Encoded larger than 1.25 x the limit: Netty will not even buffer it, and HPACK state is lost with
            // it, so the connection ends (GOAWAY PROTOCOL_ERROR), as RFC 9113 §4.3 requires of undecoded blocks.
            client.headers(1, request("GET", "app.test", "/").add("x-big", huffmanFriendly(20_000)), true);
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(PROTOCOL_ERROR);
            assertThat(client.await(-2).type()).isEqualTo(-1);
        }
        assertThat(backend.requestsSeen()).isEqualTo(seen);
    }

    @Test
    void localAnswerBeforeTheBodyIsFollowedByResetNoError() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, request("POST", "nosuch.test", "/").add("content-length", "100000"), false);
            RawH2Client.Frame answer = await(client, RawH2Client.HEADERS, 1);
            assertThat(client.decode(answer).status().toString()).isEqualTo("404");
            RawH2Client.Frame end;
            do {
                end = client.read();
            } while (end.type() != -1 && !(end.type() == RawH2Client.DATA && end.stream() == 1
                    && (end.flags() & END_STREAM) != 0));
            assertThat(end.type()).as("the complete answer").isEqualTo(RawH2Client.DATA);
            RawH2Client.Frame reset = await(client, RawH2Client.RST_STREAM, 1);
            assertThat(reset.type()).isEqualTo(RawH2Client.RST_STREAM);
            assertThat(reset.errorCode()).as("stop sending, keep the answer").isEqualTo(NO_ERROR);
            assertConnectionStillServes(client, 3);
        }
    }

    /** Random letters whose HPACK Huffman codes are 5 bits long: {@code n} characters encode to about 5n/8 bytes. */
    static String huffmanFriendly(int n) {
        String letters = "aceiost";
        Random random = new Random(42);
        StringBuilder s = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            s.append(letters.charAt(random.nextInt(letters.length())));
        }
        return s.toString();
    }
}
