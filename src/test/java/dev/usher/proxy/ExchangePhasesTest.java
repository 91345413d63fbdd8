package dev.usher.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static dev.usher.proxy.ProxyHarness.after;
import static dev.usher.proxy.ProxyHarness.exchange;
import static dev.usher.proxy.ProxyHarness.received;
import static dev.usher.proxy.ProxyHarness.send;
import static dev.usher.proxy.ProxyHarness.start;
import static dev.usher.proxy.ProxyHarness.writable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One exchange through each of its phases and endings, on embedded client and backend connections
 * ({@link ProxyHarness}): what reaches each side, and the teardown: the backend connection back in its pool or
 * closed, the in-flight count (least_conn's) back to zero, timers that no longer fire, and request body pieces
 * held back by the exchange released.
 */
class ExchangePhasesTest {
    private static final String SITE = "app.example.com";
    private static final String GET = "GET /a HTTP/1.1\r\nHost: app.example.com\r\n\r\n";
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";

    private ProxyHarness harness;

    private ProxyHarness harness(String site) throws Exception {
        harness = new ProxyHarness("  app.example.com: " + site + "\n");
        return harness;
    }

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
        while (EmbeddedSocket.nextMade() != null) {
            // forget this test's backend connections
        }
    }

    private static EmbeddedSocket backend() {
        EmbeddedSocket backend = EmbeddedSocket.nextMade();
        assertThat(backend).as("a backend connection was made").isNotNull();
        return backend;
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
    }

    // ---------------------------------------------------------------- completed

    @Test
    void aCompletedExchangeGivesItsBackendConnectionBackForTheNextRequest() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).startsWith("GET /a HTTP/1.1\r\n").contains("x-forwarded-for: 203.0.113.7");
        assertThat(h.inFlight(SITE)).isEqualTo(1);

        send(backend, OK);
        String answer = received(client);
        assertThat(answer).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nhi").doesNotContainIgnoringCase("close");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.idleConnections()).as("back in the pool").isEqualTo(1);
        assertThat(client.isActive()).isTrue();

        send(client, "GET /b HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
        assertThat(EmbeddedSocket.nextMade()).as("no new connection: the pooled one is reused").isNull();
        assertThat(received(backend)).startsWith("GET /b HTTP/1.1\r\n");
        send(backend, OK);
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aRequestBodyIsStreamedToTheBackendAndItsBuffersReleased() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ByteBuf first = bytes("POST /up HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 10\r\n\r\nhello");
        ProxyExchange exchange = start(client, first);
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).startsWith("POST /up HTTP/1.1\r\n").endsWith("\r\n\r\nhello");
        ByteBuf second = bytes("world");
        client.writeInbound(second);
        assertThat(received(backend)).isEqualTo("world");
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();

        send(backend, OK);
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.idleConnections()).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void expectContinueReachesTheClientBeforeTheBodyIsSent() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, "POST /echo HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 5\r\n"
                + "Expect: 100-continue\r\n\r\n");
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).containsIgnoringCase("expect: 100-continue").endsWith("\r\n\r\n");

        send(backend, "HTTP/1.1 100 Continue\r\n\r\n");
        assertThat(received(client)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        send(client, "hello");
        assertThat(received(backend)).isEqualTo("hello");
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("hello");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.idleConnections()).as("both messages carried in full").isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aBodyThatEndsWithTheBackendConnectionIsRechunkedForAnHttp11Client() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\n\r\nuntil the end");
        backend.close();
        String answer = received(client);
        assertThat(answer).containsIgnoringCase("transfer-encoding: chunked").endsWith("0\r\n\r\n")
                .contains("until the end");
        assertThat(client.isActive()).as("the client connection goes on").isTrue();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.idleConnections()).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aBodyThatEndsWithTheBackendConnectionEndsTheConnectionOfAnHttp10Client() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, "GET /a HTTP/1.0\r\nHost: app.example.com\r\nConnection: keep-alive\r\n\r\n");
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\n\r\nuntil the end");
        backend.close();
        String answer = received(client);
        assertThat(answer).containsIgnoringCase("connection: close").doesNotContainIgnoringCase("chunked")
                .endsWith("\r\n\r\nuntil the end");
        assertThat(client.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    // ---------------------------------------------------------------- the backend fails before answering

    @Test
    void aRefusedConnectionIsTriedOnTheNextBackend() throws Exception {
        ProxyHarness h = harness("{to: [127.0.0.1:1, 127.0.0.1:8080], policy: first}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        after(client, 2 * EmbeddedSocket.REFUSAL_MILLIS);
        EmbeddedSocket refused = backend();
        assertThat(refused.isActive()).isFalse();
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).startsWith("GET /a HTTP/1.1\r\n");
        assertThat(h.inFlight(SITE)).as("only the attempt under way counts").isEqualTo(1);
        send(backend, OK);
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.failures(SITE)).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aRefusedConnectionWithNoOtherBackendIsA502() throws Exception {
        ProxyHarness h = harness("127.0.0.1:1");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        after(client, 2 * EmbeddedSocket.REFUSAL_MILLIS);
        assertThat(received(client)).startsWith("HTTP/1.1 502 ");
        assertThat(client.isActive()).as("keep-alive: the request was read in full").isTrue();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aConnectTimeoutIsA504AndTheBodyHeldBackIsReleased() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:2, timeouts: {connect: 50ms}}");
        EmbeddedSocket client = h.client();
        ByteBuf request = bytes("POST /up HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 5\r\n\r\nhello");
        ProxyExchange exchange = start(client, request);
        assertThat(request.refCnt()).as("the body waits in the exchange for a backend").isPositive();
        after(client, 100);
        assertThat(received(client)).startsWith("HTTP/1.1 504 ");
        assertThat(request.refCnt()).isZero();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aClientThatLeavesWhileTheBackendIsConnectingReleasesTheBodyHeldBack() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:2, timeouts: {connect: 5s}}");
        EmbeddedSocket client = h.client();
        ByteBuf request = bytes("POST /up HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 5\r\n\r\nhello");
        ProxyExchange exchange = start(client, request);
        assertThat(request.refCnt()).isPositive();
        assertThat(h.inFlight(SITE)).isEqualTo(1);
        client.close();
        assertThat(request.refCnt()).isZero();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.CLIENT_GONE);
    }

    @Test
    void aFreshConnectionClosedBeforeTheAnswerIsA502AndCountsAgainstTheBackend() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        backend.close();
        assertThat(EmbeddedSocket.nextMade()).as("no other backend to try").isNull();
        assertThat(received(client)).startsWith("HTTP/1.1 502 ");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.failures(SITE)).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aKeptAliveConnectionTheBackendClosedIsResentOnceOnANewOne() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        send(client, GET);
        EmbeddedSocket first = backend();
        received(first);
        send(first, OK);
        received(client);

        ProxyExchange exchange = start(client, "GET /b HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
        assertThat(received(first)).startsWith("GET /b ");
        first.close(); // the backend's keep-alive timer ran out just as the request came
        EmbeddedSocket second = backend();
        assertThat(received(second)).startsWith("GET /b ");
        send(second, OK);
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.failures(SITE)).as("a stale keep-alive says nothing about the backend").isZero();
        assertThat(h.idleConnections()).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aRequestWithABodyIsNotResentWhenItsKeptAliveConnectionCloses() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        send(client, GET);
        EmbeddedSocket first = backend();
        received(first);
        send(first, OK);
        received(client);

        ProxyExchange exchange = start(client, "POST /b HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 2\r\n\r\nhi");
        assertThat(received(first)).startsWith("POST /b ");
        first.close();
        assertThat(EmbeddedSocket.nextMade()).as("not resent").isNull();
        assertThat(received(client)).startsWith("HTTP/1.1 502 ");
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aBackendSilentForTheResponseTimeoutIsA504AndItsConnectionClosed() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, timeouts: {response: 50ms}}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        after(client, 100);
        assertThat(received(client)).startsWith("HTTP/1.1 504 ");
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.failures(SITE)).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void anInvalidResponseIsA502() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n");
        assertThat(received(client)).startsWith("HTTP/1.1 502 ");
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    // ---------------------------------------------------------------- the response was under way

    @Test
    void aBackendThatFailsMidResponseCutsTheClientConnection() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n").endsWith("hello");
        backend.close();
        assertThat(client.isActive()).as("cut: the only honest signal").isFalse();
        assertThat(received(client)).isEmpty();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.BACKEND_FAILED);
    }

    @Test
    void aBackendSilentMidResponseForTheResponseTimeoutCutsBothConnections() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, timeouts: {response: 50ms}}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        received(client);
        after(client, 100);
        assertThat(client.isActive()).isFalse();
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.BACKEND_FAILED);
    }

    @Test
    void aClientThatLeavesMidResponseClosesTheBackendConnection() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        client.close();
        assertThat(backend.isActive()).as("half a response on it: never pooled").isFalse();
        assertThat(h.idleConnections()).isZero();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.CLIENT_GONE);
    }

    @Test
    void aClientThatStopsReadingIsCutAfterTheWriteTimeout() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, timeouts: {write: 50ms}}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        writable(client, false);
        after(client, 100);
        assertThat(client.isActive()).isFalse();
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.WRITE_TIMEOUT);
    }

    @Test
    void timersOfACompletedExchangeNoLongerFire() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, timeouts: {response: 50ms, write: 50ms}}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        writable(client, false);
        writable(client, true);
        send(backend, "world");
        assertThat(received(client)).endsWith("helloworld");
        writable(client, false); // after the exchange
        after(client, 100);
        writable(client, true);
        assertThat(client.isActive()).isTrue();
        assertThat(received(client)).as("no 504 after the fact").isEmpty();
        send(client, GET);
        assertThat(received(backend)).startsWith("GET /a ");
        send(backend, OK);
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    // ---------------------------------------------------------------- upgrade

    @Test
    void a101TurnsBothConnectionsIntoARelay() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, "GET /ws HTTP/1.1\r\nHost: app.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).containsIgnoringCase("upgrade: websocket")
                .containsIgnoringCase("connection: upgrade");
        send(backend, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
        assertThat(received(client)).startsWith("HTTP/1.1 101 Switching Protocols\r\n")
                .containsIgnoringCase("upgrade: websocket").containsIgnoringCase("connection: upgrade");
        assertThat(client.pipeline().get(Http1ProxyHandler.CODEC_NAME)).isNull();
        assertThat(client.pipeline().get("relay")).isInstanceOf(RawRelay.class);
        assertThat(backend.pipeline().get("relay")).isInstanceOf(RawRelay.class);
        assertThat(h.inFlight(SITE)).as("a relay is not a request in flight").isZero();

        send(client, "to the backend");
        assertThat(received(backend)).isEqualTo("to the backend");
        send(backend, "to the client");
        assertThat(received(client)).isEqualTo("to the client");
        backend.close();
        assertThat(client.isActive()).isFalse();
        assertThat(exchange.ending()).isEqualTo(Ending.UPGRADED);
    }

    @Test
    void a101ToARequestThatDidNotAskForItIsA502() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, GET);
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
        assertThat(received(client)).startsWith("HTTP/1.1 502 ");
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    // ---------------------------------------------------------------- local answers

    @Test
    void aRequestTheRulesRefuseNeverReachesABackend() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, deny: 203.0.113.0/24}");
        EmbeddedSocket client = h.client();
        assertThat(start(client, GET)).as("answered before any exchange").isNull();
        assertThat(received(client)).startsWith("HTTP/1.1 403 ");
        assertThat(EmbeddedSocket.nextMade()).isNull();
        assertThat(h.inFlight(SITE)).isZero();
    }

    @Test
    void aWrongPasswordIsRefusedAfterItsCheckAndTheBodyHeldBackIsReleased() throws Exception {
        byte[] salt = new byte[16];
        // Cost 10: the check takes longer than the rest of the request's handling, so its verdict comes later.
        String hash = OpenBSDBCrypt.generate("2y", "right".toCharArray(), salt, 10);
        ProxyHarness h = harness("{to: 127.0.0.1:8080, basic_auth: {alice: \"" + hash + "\"}}");
        EmbeddedSocket client = h.client();
        String credentials = java.util.Base64.getEncoder().encodeToString("alice:wrong".getBytes());
        ByteBuf request = bytes("POST /up HTTP/1.1\r\nHost: app.example.com\r\nAuthorization: Basic " + credentials
                + "\r\nContent-Length: 5\r\n\r\nhello");
        ProxyExchange exchange = start(client, request);
        assertThat(request.refCnt()).as("the body waits for the verdict").isPositive();
        StringBuilder answer = new StringBuilder();
        ProxyHarness.runUntil(client, () -> answer.append(received(client)).length() > 0);
        assertThat(answer.toString()).startsWith("HTTP/1.1 401 ");
        assertThat(request.refCnt()).isZero();
        assertThat(EmbeddedSocket.nextMade()).isNull();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.REJECTED);
    }

    @Test
    void aBodyOverTheLimitMidStreamIsA413AndTheBackendConnectionClosed() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, max_body: 8}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, "POST /up HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).endsWith("hello\r\n");
        send(client, "5\r\nworld\r\n0\r\n\r\n");
        assertThat(received(client)).startsWith("HTTP/1.1 413 ").containsIgnoringCase("connection: close");
        assertThat(backend.isActive()).as("it holds half a request").isFalse();
        assertThat(client.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aBodyOverTheLimitAfterTheAnswerBeganCutsBothConnections() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:8080, max_body: 8}");
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client,
                "POST /up HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        EmbeddedSocket backend = backend();
        received(backend);
        send(backend, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"); // an echo, streaming
        assertThat(received(client)).startsWith("HTTP/1.1 200 OK\r\n");
        send(client, "5\r\nworld\r\n0\r\n\r\n");
        assertThat(received(client)).as("no error page spliced into the answer").isEmpty();
        assertThat(client.isActive()).isFalse();
        assertThat(backend.isActive()).isFalse();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.REQUEST_FAILED);
    }

    // ---------------------------------------------------------------- HTTP/2 streams

    @Test
    void anHttp2StreamIsProxiedAndItsBackendConnectionPooled() throws Exception {
        ProxyHarness h = harness("127.0.0.1:8080");
        EmbeddedSocket stream = h.stream();
        DefaultHttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/s");
        head.headers().set("host", SITE);
        stream.writeOneInbound(head);
        ProxyExchange exchange = exchange(stream);
        stream.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
        EmbeddedSocket backend = backend();
        assertThat(received(backend)).startsWith("GET /s HTTP/1.1\r\n");
        send(backend, OK);
        Object response = stream.readOutbound();
        assertThat(response).isInstanceOf(HttpResponse.class);
        assertThat(((HttpResponse) response).status().code()).isEqualTo(200);
        Object body = stream.readOutbound();
        assertThat(body).isInstanceOf(LastHttpContent.class);
        assertThat(((HttpContent) body).content().toString(StandardCharsets.US_ASCII)).isEqualTo("hi");
        ReferenceCountUtil.release(body);
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(h.idleConnections()).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void anHttp2StreamResetMidRequestClosesTheBackendConnectionAndReleasesTheBody() throws Exception {
        ProxyHarness h = harness("{to: 127.0.0.1:2, timeouts: {connect: 5s}}");
        EmbeddedSocket stream = h.stream();
        DefaultHttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/s");
        head.headers().set("host", SITE).set("content-length", "5");
        ByteBuf body = bytes("hello");
        stream.writeOneInbound(head);
        ProxyExchange exchange = exchange(stream);
        stream.writeInbound(new DefaultLastHttpContent(body));
        assertThat(body.refCnt()).isPositive();
        stream.close(); // RST_STREAM from the client
        assertThat(body.refCnt()).isZero();
        assertThat(h.inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.CLIENT_GONE);
    }
}
