package dev.usher.it;

import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/2 at the connection level, seen frame by frame: idle connections end with GOAWAY, a graceful close sends
 * GOAWAY and lets the stream in flight finish, rapid resets end the connection, and requests HTTP/2 cannot carry
 * (CONNECT, no authority, connection-specific headers) are refused on their stream only.
 */
class Http2ConnectionTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static final int NO_ERROR = 0, PROTOCOL_ERROR = 1, ENHANCE_YOUR_CALM = 0xb;
    static Whoami backend;
    static TlsTestServer usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("conn");
        usher = servers.track(TlsTestServer.start("""
                timeouts: {idle: 1s}
                sites:
                  app.test: 127.0.0.1:%d
                """.formatted(backend.port())));
    }

    static Http2Headers get(String path) {
        return new DefaultHttp2Headers().method("GET").scheme("https").authority("app.test").path(path);
    }

    @Test
    void connectionWithoutStreamsEndsWithGoawayAfterTheIdleTimeout() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            long start = System.nanoTime();
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(NO_ERROR);
            assertThat(millis).isBetween(800L, 3000L);
            assertThat(client.await(-2).type()).as("then the connection closes").isEqualTo(-1);
        }
    }

    @Test
    void openStreamKeepsTheConnectionPastTheIdleTimeout() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/?wait=2s"), true);
            RawH2Client.Frame headers = client.await(RawH2Client.HEADERS);
            assertThat(headers.type()).as("the answer after 2 s, no GOAWAY before").isEqualTo(RawH2Client.HEADERS);
            assertThat(client.decode(headers).status().toString()).isEqualTo("200");
        }
    }

    @Test
    void gracefulCloseSendsGoawayAndLetsTheOpenStreamFinish() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, get("/?wait=500ms"), true);
            Thread.sleep(200);
            usher.closeGracefully();
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(NO_ERROR);
            RawH2Client.Frame headers = client.await(RawH2Client.HEADERS);
            assertThat(headers.type()).as("the stream in flight still gets its answer").isEqualTo(RawH2Client.HEADERS);
            assertThat(client.decode(headers).status().toString()).isEqualTo("200");
            assertThat(client.await(-2).type()).isEqualTo(-1);
        }
    }

    @Test
    void rapidResetsEndTheConnectionWithEnhanceYourCalm() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            for (int i = 0; i < 400; i++) {
                int stream = 1 + 2 * i;
                client.headers(stream, get("/?wait=1s"), true);
                client.reset(stream);
            }
            RawH2Client.Frame goaway = client.await(RawH2Client.GOAWAY);
            assertThat(goaway.type()).isEqualTo(RawH2Client.GOAWAY);
            assertThat(goaway.errorCode()).isEqualTo(ENHANCE_YOUR_CALM);
        }
    }

    @Test
    void connectIsRefusedWith405AndTheConnectionGoesOn() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, new DefaultHttp2Headers().method("CONNECT").authority("app.test:443"), false);
            RawH2Client.Frame refused = client.await(RawH2Client.HEADERS);
            assertThat(client.decode(refused).status().toString()).isEqualTo("405");
            client.headers(3, get("/"), true);
            RawH2Client.Frame ok;
            do {
                ok = client.await(RawH2Client.HEADERS);
            } while (ok.stream() != 3 && ok.type() != -1);
            assertThat(client.decode(ok).status().toString()).isEqualTo("200");
        }
    }

    @Test
    void requestWithoutAuthorityOrHostGets400() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            client.headers(1, new DefaultHttp2Headers().method("GET").scheme("https").path("/"), true);
            RawH2Client.Frame answer = client.await(RawH2Client.HEADERS);
            assertThat(client.decode(answer).status().toString()).isEqualTo("400");
        }
    }

    @Test
    void websocketUpgradeOverHttp2IsRefusedOnItsStream() throws Exception {
        try (RawH2Client client = new RawH2Client(usher.port())) {
            Http2Headers upgrade = get("/").add("connection", "upgrade").add("upgrade", "websocket");
            client.headers(1, upgrade, true);
            RawH2Client.Frame reset = client.await(RawH2Client.RST_STREAM);
            assertThat(reset.type()).isEqualTo(RawH2Client.RST_STREAM);
            assertThat(reset.errorCode()).isEqualTo(PROTOCOL_ERROR);
            client.headers(3, get("/"), true);
            RawH2Client.Frame ok = client.await(RawH2Client.HEADERS);
            assertThat(ok.stream()).isEqualTo(3);
            assertThat(client.decode(ok).status().toString()).isEqualTo("200");
        }
    }
}
