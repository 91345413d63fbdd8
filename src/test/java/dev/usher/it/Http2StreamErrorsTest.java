package dev.usher.it;

import dev.usher.whoami.Whoami;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client breaking HTTP/2 on one stream gets that stream reset with the error code RFC 9113 names (not CANCEL,
 * and never no answer at all), and the connection goes on; frames on streams that are no longer open end the
 * connection with the connection error the RFC names. The cases are those h2spec found (bench/conformance/).
 */
class Http2StreamErrorsTest {
    static final int PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3, STREAM_CLOSED = 5;
    static Whoami backend;
    static TlsTestServer usher;

    @BeforeAll
    static void start() throws Exception {
        backend = Whoami.start("127.0.0.1", 0, "h2err");
        usher = TlsTestServer.start("""
                sites:
                  app.test: 127.0.0.1:%d
                """.formatted(backend.port()));
    }

    @AfterAll
    static void stop() {
        usher.close();
        backend.close();
    }

    static Http2Headers get(String path) {
        return new DefaultHttp2Headers().method("GET").scheme("https").authority("app.test").path(path);
    }

    /** Sends {@code bad} on stream 1, expects RST_STREAM(code) on it, then a normal GET on stream 3 answered 200. */
    private static void resetThenServed(RawH2Client client, int code) throws Exception {
        RawH2Client.Frame reset = client.await(RawH2Client.RST_STREAM);
        assertThat(reset.type()).as("a reset, not silence").isEqualTo(RawH2Client.RST_STREAM);
        assertThat(reset.stream()).isEqualTo(1);
        assertThat(reset.errorCode()).isEqualTo(code);
        client.headers(3, get("/"), true);
        RawH2Client.Frame ok;
        do {
            ok = client.await(RawH2Client.HEADERS);
        } while (ok.type() != -1 && ok.stream() != 3);
        assertThat(ok.type()).as("the connection goes on").isEqualTo(RawH2Client.HEADERS);
        assertThat(client.decode(ok).status().toString()).isEqualTo("200");
    }

    @Test
    void requestWithoutMethodIsResetWithProtocolError() throws Exception {
        long before = backend.requestsSeen();
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, new DefaultHttp2Headers().scheme("https").authority("app.test").path("/"), true);
            resetThenServed(client, PROTOCOL_ERROR);
        }
        assertThat(backend.requestsSeen() - before).as("only the good request reached the backend").isEqualTo(1);
    }

    @Test
    void requestWithoutSchemeOrPathIsResetWithProtocolError() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, new DefaultHttp2Headers().method("GET").authority("app.test").path("/"), true);
            resetThenServed(client, PROTOCOL_ERROR);
        }
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, new DefaultHttp2Headers().method("GET").scheme("https").authority("app.test"), true);
            resetThenServed(client, PROTOCOL_ERROR);
        }
    }

    @Test
    void bodyLongerThanContentLengthIsResetWithProtocolError() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            Http2Headers post = get("/echo").method("POST").setInt("content-length", 1);
            client.headers(1, post, false);
            client.frame(RawH2Client.DATA, 0x1, 1, "too long".getBytes());
            resetThenServed(client, PROTOCOL_ERROR);
        }
    }

    @Test
    void dataAfterTheClientEndedItsStreamIsResetWithStreamClosed() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/?wait=1s"), true);
            client.frame(RawH2Client.DATA, 0x1, 1, "late".getBytes());
            resetThenServed(client, STREAM_CLOSED);
        }
    }

    @Test
    void secondHeadersAfterTheClientEndedItsStreamIsResetWithStreamClosed() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/?wait=1s"), true);
            client.headers(1, new DefaultHttp2Headers().add("x-trailer", "late"), true);
            resetThenServed(client, STREAM_CLOSED);
        }
    }

    @Test
    void windowOverflowOnAStreamIsResetWithFlowControlError() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/?wait=1s"), true);
            client.frame(RawH2Client.WINDOW_UPDATE, 0, 1, ByteBuffer.allocate(4).putInt(0x7fffffff).array());
            client.frame(RawH2Client.WINDOW_UPDATE, 0, 1, ByteBuffer.allocate(4).putInt(0x7fffffff).array());
            resetThenServed(client, FLOW_CONTROL_ERROR);
        }
    }

    @Test
    void headersOnAStreamClosedNormallyEndTheConnectionWithStreamClosed() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/"), true);
            RawH2Client.Frame answer = client.await(RawH2Client.HEADERS);
            assertThat(client.decode(answer).status().toString()).isEqualTo("200");
            RawH2Client.Frame end;
            do {
                end = client.read(); // the rest of the answer, up to its END_STREAM
            } while (end.type() != -1 && (end.flags() & 0x1) == 0);
            client.headers(1, get("/"), true);
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(STREAM_CLOSED);
        }
    }

    @Test
    void aStreamIdBelowTheLastOneUsedEndsTheConnectionWithProtocolError() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(5, get("/"), true);
            client.headers(3, get("/"), true);
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(PROTOCOL_ERROR);
        }
    }

    @Test
    void trailersAfterAResetByUsherOnlyResetTheStreamAgain() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            // A body over Content-Length: Usher resets stream 1; trailers the client sent before seeing that
            // must not cost the whole connection.
            client.headers(1, get("/echo").method("POST").setInt("content-length", 1), false);
            client.frame(RawH2Client.DATA, 0, 1, "too long".getBytes());
            RawH2Client.Frame reset = client.await(RawH2Client.RST_STREAM);
            assertThat(reset.errorCode()).isEqualTo(PROTOCOL_ERROR);
            client.headers(1, new DefaultHttp2Headers().add("x-trailer", "in flight"), true);
            client.headers(3, get("/"), true);
            RawH2Client.Frame next;
            do {
                next = client.read();
            } while (next.type() != -1 && next.type() != RawH2Client.GOAWAY
                    && !(next.type() == RawH2Client.HEADERS && next.stream() == 3));
            assertThat(next.type()).as("stream 3 answered, no GOAWAY").isEqualTo(RawH2Client.HEADERS);
        }
    }
}
