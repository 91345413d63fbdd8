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
import java.util.Base64;

import static dev.usher.proxy.ProxyHarness.after;
import static dev.usher.proxy.ProxyHarness.exchange;
import static dev.usher.proxy.ProxyHarness.received;
import static dev.usher.proxy.ProxyHarness.send;
import static dev.usher.proxy.ProxyHarness.start;
import static dev.usher.proxy.ProxyHarness.writable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One exchange through each of its phases and endings, on embedded client and backend connections
 * ({@link ProxyHarness}): what reaches each side, why the exchange ended ({@link Ending}), and the teardown: the
 * backend connection back in its pool or closed, the in-flight count (least_conn's) back to zero, timers that no
 * longer fire, and request body pieces held back by the exchange released.
 */
class ExchangePhasesTest {
    private static final String SITE = "app.example.com";
    private static final String GET = "GET /a HTTP/1.1\r\nHost: app.example.com\r\n\r\n";
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
    private static final String HALF_OF_TEN = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello";

    private ProxyHarness harness;

    /**
     * A client connection whose request reached the backend.
     *
     * @param forwarded what the backend received of it so far
     */
    private record Turn(ProxyHarness harness, EmbeddedSocket client, ProxyExchange exchange, EmbeddedSocket backend,
                        String forwarded) {
    }

    private ProxyHarness harness(String site) throws Exception {
        harness = new ProxyHarness("  app.example.com: " + site + "\n");
        return harness;
    }

    /** A new connection to {@code site} (its config value) whose {@code request} went to a backend connection. */
    private Turn turn(String site, String request) throws Exception {
        ProxyHarness h = harness(site);
        EmbeddedSocket client = h.client();
        ProxyExchange exchange = start(client, request);
        EmbeddedSocket backend = backend();
        return new Turn(h, client, exchange, backend, received(backend));
    }

    private Turn turn(String site) throws Exception {
        return turn(site, GET);
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

    /**
     * The exchange answered {@code status} itself, closed its backend connection and holds no in-flight count;
     * returns the answer.
     */
    private static String assertLocalAnswer(Turn t, int status) {
        String answer = received(t.client());
        assertThat(answer).startsWith("HTTP/1.1 " + status + " ");
        assertThat(t.backend().isActive()).as("it holds half an exchange").isFalse();
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.exchange().ending()).isEqualTo(Ending.LOCAL_ANSWER);
        return answer;
    }

    /** The exchange ended for {@code why} by cutting both connections, and holds no in-flight count. */
    private static void assertCut(Turn t, Ending why) {
        assertThat(t.client().isActive()).as("the client connection").isFalse();
        assertThat(t.backend().isActive()).as("the backend connection").isFalse();
        assertThat(t.harness().idleConnections()).isZero();
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.exchange().ending()).isEqualTo(why);
    }

    // ---------------------------------------------------------------- completed

    @Test
    void aCompletedExchangeGivesItsBackendConnectionBackForTheNextRequest() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        assertThat(t.forwarded()).startsWith("GET /a HTTP/1.1\r\n").contains("x-forwarded-for: 203.0.113.7");
        assertThat(t.harness().inFlight(SITE)).isEqualTo(1);

        send(t.backend(), OK);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\nhi")
                .doesNotContainIgnoringCase("close");
        assertThat(t.exchange().ending()).isEqualTo(Ending.COMPLETED);
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.harness().idleConnections()).as("back in the pool").isEqualTo(1);
        assertThat(t.client().isActive()).isTrue();

        send(t.client(), "GET /b HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
        assertThat(EmbeddedSocket.nextMade()).as("no new connection: the pooled one is reused").isNull();
        assertThat(received(t.backend())).startsWith("GET /b HTTP/1.1\r\n");
        send(t.backend(), OK);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(t.harness().inFlight(SITE)).isZero();
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
        Turn t = turn("127.0.0.1:8080", "POST /echo HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 5\r\n"
                + "Expect: 100-continue\r\n\r\n");
        assertThat(t.forwarded()).containsIgnoringCase("expect: 100-continue").endsWith("\r\n\r\n");

        send(t.backend(), "HTTP/1.1 100 Continue\r\n\r\n");
        assertThat(received(t.client())).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        send(t.client(), "hello");
        assertThat(received(t.backend())).isEqualTo("hello");
        send(t.backend(), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n").endsWith("hello");
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.harness().idleConnections()).as("both messages carried in full").isEqualTo(1);
        assertThat(t.exchange().ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aBodyThatEndsWithTheBackendConnectionIsRechunkedForAnHttp11Client() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), "HTTP/1.1 200 OK\r\n\r\nuntil the end");
        t.backend().close();
        assertThat(received(t.client())).containsIgnoringCase("transfer-encoding: chunked").endsWith("0\r\n\r\n")
                .contains("until the end");
        assertThat(t.client().isActive()).as("the client connection goes on").isTrue();
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.harness().idleConnections()).isZero();
        assertThat(t.exchange().ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aBodyThatEndsWithTheBackendConnectionEndsTheConnectionOfAnHttp10Client() throws Exception {
        Turn t = turn("127.0.0.1:8080", "GET /a HTTP/1.0\r\nHost: app.example.com\r\nConnection: keep-alive\r\n\r\n");
        send(t.backend(), "HTTP/1.1 200 OK\r\n\r\nuntil the end");
        t.backend().close();
        assertThat(received(t.client())).containsIgnoringCase("connection: close")
                .doesNotContainIgnoringCase("chunked").endsWith("\r\n\r\nuntil the end");
        assertThat(t.client().isActive()).isFalse();
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.exchange().ending()).isEqualTo(Ending.COMPLETED);
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
        Turn t = turn("127.0.0.1:8080");
        t.backend().close();
        assertThat(EmbeddedSocket.nextMade()).as("no other backend to try").isNull();
        assertLocalAnswer(t, 502);
        assertThat(t.harness().failures(SITE)).isEqualTo(1);
    }

    @Test
    void aKeptAliveConnectionTheBackendClosedIsResentOnceOnANewOne() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), OK);
        received(t.client());

        ProxyExchange exchange = start(t.client(), "GET /b HTTP/1.1\r\nHost: app.example.com\r\n\r\n");
        assertThat(received(t.backend())).startsWith("GET /b ");
        t.backend().close(); // the backend's keep-alive timer ran out just as the request came
        EmbeddedSocket second = backend();
        assertThat(received(second)).startsWith("GET /b ");
        send(second, OK);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(t.harness().failures(SITE)).as("a stale keep-alive says nothing about the backend").isZero();
        assertThat(t.harness().idleConnections()).isEqualTo(1);
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aGetWhoseAnnouncedBodyIsEmptyIsResentLikeABodilessOne() throws Exception {
        // as an HTTP/2 or HTTP/3 GET that ends its stream in a frame of its own: a body announced, none sent
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), OK);
        received(t.client());

        ProxyExchange exchange = start(t.client(),
                "GET /c HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
        assertThat(received(t.backend())).startsWith("GET /c ");
        t.backend().close();
        EmbeddedSocket second = backend();
        assertThat(received(second)).startsWith("GET /c ");
        send(second, OK);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n");
        assertThat(exchange.ending()).isEqualTo(Ending.COMPLETED);
    }

    @Test
    void aRequestWithABodyIsNotResentWhenItsKeptAliveConnectionCloses() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), OK);
        received(t.client());

        ProxyExchange exchange = start(t.client(),
                "POST /b HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 2\r\n\r\nhi");
        assertThat(received(t.backend())).startsWith("POST /b ");
        t.backend().close();
        assertThat(EmbeddedSocket.nextMade()).as("not resent").isNull();
        assertThat(received(t.client())).startsWith("HTTP/1.1 502 ");
        assertThat(t.harness().inFlight(SITE)).isZero();
        assertThat(exchange.ending()).isEqualTo(Ending.LOCAL_ANSWER);
    }

    @Test
    void aBackendSilentForTheResponseTimeoutIsA504AndItsConnectionClosed() throws Exception {
        Turn t = turn("{to: 127.0.0.1:8080, timeouts: {response: 50ms}}");
        after(t.client(), 100);
        assertLocalAnswer(t, 504);
        assertThat(t.harness().failures(SITE)).isEqualTo(1);
    }

    @Test
    void anInvalidResponseIsA502() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), "HTTP/1.1 200 OK\r\nContent-Length: nope\r\n\r\n");
        assertLocalAnswer(t, 502);
    }

    @Test
    void a101ToARequestThatDidNotAskForItIsA502() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
        assertLocalAnswer(t, 502);
    }

    // ---------------------------------------------------------------- the response was under way

    @Test
    void aBackendThatFailsMidResponseCutsTheClientConnection() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), HALF_OF_TEN);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n").endsWith("hello");
        t.backend().close();
        assertThat(received(t.client())).as("cut: the only honest signal").isEmpty();
        assertCut(t, Ending.BACKEND_FAILED);
    }

    @Test
    void aBackendSilentMidResponseForTheResponseTimeoutCutsBothConnections() throws Exception {
        Turn t = turn("{to: 127.0.0.1:8080, timeouts: {response: 50ms}}");
        send(t.backend(), HALF_OF_TEN);
        received(t.client());
        after(t.client(), 100);
        assertCut(t, Ending.BACKEND_FAILED);
    }

    @Test
    void aClientThatLeavesMidResponseClosesTheBackendConnection() throws Exception {
        Turn t = turn("127.0.0.1:8080");
        send(t.backend(), HALF_OF_TEN);
        t.client().close();
        assertThat(t.backend().isActive()).as("half a response on it: never pooled").isFalse();
        assertCut(t, Ending.CLIENT_GONE);
    }

    @Test
    void aClientThatStopsReadingIsCutAfterTheWriteTimeout() throws Exception {
        Turn t = turn("{to: 127.0.0.1:8080, timeouts: {write: 50ms}}");
        send(t.backend(), HALF_OF_TEN);
        writable(t.client(), false);
        after(t.client(), 100);
        assertCut(t, Ending.WRITE_TIMEOUT);
    }

    @Test
    void timersOfACompletedExchangeNoLongerFire() throws Exception {
        Turn t = turn("{to: 127.0.0.1:8080, timeouts: {response: 50ms, write: 50ms}}");
        send(t.backend(), HALF_OF_TEN);
        writable(t.client(), false);
        writable(t.client(), true);
        send(t.backend(), "world");
        assertThat(received(t.client())).endsWith("helloworld");
        assertThat(t.exchange().ending()).isEqualTo(Ending.COMPLETED);
        writable(t.client(), false); // after the exchange
        after(t.client(), 100);
        writable(t.client(), true);
        assertThat(t.client().isActive()).isTrue();
        assertThat(received(t.client())).as("no 504 after the fact").isEmpty();
        send(t.client(), GET);
        assertThat(received(t.backend())).startsWith("GET /a ");
        send(t.backend(), OK);
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n");
    }

    @Test
    void aBodyOverTheLimitAfterTheAnswerBeganCutsBothConnections() throws Exception {
        Turn t = turn("{to: 127.0.0.1:8080, max_body: 8}",
                "POST /up HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        send(t.backend(), HALF_OF_TEN); // an echo, streaming
        assertThat(received(t.client())).startsWith("HTTP/1.1 200 OK\r\n");
        send(t.client(), "5\r\nworld\r\n0\r\n\r\n");
        assertThat(received(t.client())).as("no error page spliced into the answer").isEmpty();
        assertCut(t, Ending.REQUEST_FAILED);
    }

    // ---------------------------------------------------------------- upgrade

    @Test
    void a101TurnsBothConnectionsIntoARelay() throws Exception {
        Turn t = turn("127.0.0.1:8080", "GET /ws HTTP/1.1\r\nHost: app.example.com\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
        assertThat(t.forwarded()).containsIgnoringCase("upgrade: websocket").containsIgnoringCase("connection: upgrade");
        send(t.backend(), "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
        assertThat(received(t.client())).startsWith("HTTP/1.1 101 Switching Protocols\r\n")
                .containsIgnoringCase("upgrade: websocket").containsIgnoringCase("connection: upgrade");
        assertThat(t.client().pipeline().get(Http1ProxyHandler.CODEC_NAME)).isNull();
        assertThat(t.client().pipeline().get("relay")).isInstanceOf(RawRelay.class);
        assertThat(t.backend().pipeline().get("relay")).isInstanceOf(RawRelay.class);
        assertThat(t.harness().inFlight(SITE)).as("a relay is not a request in flight").isZero();
        assertThat(t.exchange().ending()).isEqualTo(Ending.UPGRADED);

        send(t.client(), "to the backend");
        assertThat(received(t.backend())).isEqualTo("to the backend");
        send(t.backend(), "to the client");
        assertThat(received(t.client())).isEqualTo("to the client");
        t.backend().close();
        assertThat(t.client().isActive()).isFalse();
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
        // Cost 10: the check takes longer than the rest of the request's handling, so its verdict comes later.
        String hash = OpenBSDBCrypt.generate("2y", "right".toCharArray(), new byte[16], 10);
        ProxyHarness h = harness("{to: 127.0.0.1:8080, basic_auth: {alice: \"" + hash + "\"}}");
        EmbeddedSocket client = h.client();
        String credentials = Base64.getEncoder().encodeToString("alice:wrong".getBytes(StandardCharsets.UTF_8));
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
        Turn t = turn("{to: 127.0.0.1:8080, max_body: 8}",
                "POST /up HTTP/1.1\r\nHost: app.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        assertThat(t.forwarded()).endsWith("hello\r\n");
        send(t.client(), "5\r\nworld\r\n0\r\n\r\n");
        assertThat(assertLocalAnswer(t, 413)).containsIgnoringCase("connection: close");
        assertThat(t.client().isActive()).as("the rest of the body is not read").isFalse();
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
    void anHttp2StreamResetWhileItsBackendConnectsReleasesTheBody() throws Exception {
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
