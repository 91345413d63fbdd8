package dev.usher.proxy;

import dev.usher.proxy.ResponseFraming.Afterwards;
import dev.usher.proxy.ResponseFraming.Kind;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The re-framing of backend response heads for the client, on plain response objects. */
class ResponseFramingTest {
    private static final RequestShape HTTP11 = RequestShape.of(false);
    private static final RequestShape HTTP10 = RequestShape.of(false).withHttp10(true);
    private static final RequestShape HTTP11_CLOSE = RequestShape.of(false).withKeepAlive(false);
    private static final RequestShape HTTP10_CLOSE = HTTP10.withKeepAlive(false);
    private static final RequestShape UPGRADE = RequestShape.of(false).withUpgrade(true);

    /** A head as the backend's decoder delivers it: {@code headers} as name, value, name, value… */
    private static HttpResponse head(HttpVersion version, int status, String... headers) {
        HttpResponse response = new DefaultHttpResponse(version, HttpResponseStatus.valueOf(status));
        for (int i = 0; i < headers.length; i += 2) {
            response.headers().add(headers[i], headers[i + 1]);
        }
        return response;
    }

    private static HttpResponse head(int status, String... headers) {
        return head(HttpVersion.HTTP_1_1, status, headers);
    }

    private static Afterwards get(HttpResponse response, RequestShape shape) {
        return ResponseFraming.finalHead(response, HttpMethod.GET, shape, false);
    }

    // ---------------------------------------------------------------- kinds

    @Test
    void finalInterimAndSwitchingHeads() {
        assertThat(ResponseFraming.kind(head(200), HTTP11)).isEqualTo(Kind.FINAL);
        assertThat(ResponseFraming.kind(head(404), HTTP11)).isEqualTo(Kind.FINAL);
        assertThat(ResponseFraming.kind(head(100), HTTP11)).isEqualTo(Kind.INTERIM);
        assertThat(ResponseFraming.kind(head(103), HTTP11)).isEqualTo(Kind.INTERIM);
        assertThat(ResponseFraming.kind(head(101), UPGRADE)).isEqualTo(Kind.SWITCH);
        assertThat(ResponseFraming.kind(head(101), HTTP11)).as("no upgrade was asked for").isEqualTo(Kind.INVALID);
        assertThat(ResponseFraming.kind(head(101), UPGRADE.withKeepAlive(false)))
                .as("a connection that ends after the request cannot become a tunnel").isEqualTo(Kind.INVALID);
    }

    // ---------------------------------------------------------------- length-delimited bodies

    @Test
    void aContentLengthBodyKeepsItsFramingAndBothConnections() {
        HttpResponse r = head(200, "Content-Length", "5", "Content-Type", "text/plain", "Keep-Alive", "timeout=5",
                "Connection", "keep-alive, X-Hop", "X-Hop", "1");
        assertThat(get(r, HTTP11)).isEqualTo(Afterwards.KEEP_BOTH);
        HttpHeaders h = r.headers();
        assertThat(h.get("content-length")).isEqualTo("5");
        assertThat(h.get("content-type")).isEqualTo("text/plain");
        assertThat(h.contains("keep-alive")).as("hop-by-hop").isFalse();
        assertThat(h.contains("x-hop")).as("named in Connection").isFalse();
        assertThat(h.contains("connection")).isFalse();
        assertThat(h.contains("transfer-encoding")).isFalse();
    }

    @Test
    void aBackendThatClosesAfterItsAnswerIsNotReused() {
        assertThat(get(head(200, "Content-Length", "5", "Connection", "close"), HTTP11))
                .isEqualTo(Afterwards.CLOSE_BACKEND);
        HttpResponse old = head(HttpVersion.HTTP_1_0, 200, "Content-Length", "5");
        assertThat(get(old, HTTP11)).as("HTTP/1.0 without keep-alive").isEqualTo(Afterwards.CLOSE_BACKEND);
        assertThat(old.protocolVersion()).as("passed on as HTTP/1.1").isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(get(head(HttpVersion.HTTP_1_0, 200, "Content-Length", "5", "Connection", "keep-alive"), HTTP11))
                .isEqualTo(Afterwards.KEEP_BOTH);
    }

    @Test
    void aClientThatAskedToCloseGetsConnectionClose() {
        HttpResponse r = head(200, "Content-Length", "5");
        assertThat(get(r, HTTP11_CLOSE)).isEqualTo(Afterwards.CLOSE_CLIENT);
        assertThat(r.headers().get("connection")).isEqualTo("close");
    }

    @Test
    void closingSaysConnectionCloseToo() {
        HttpResponse r = head(200, "Content-Length", "5");
        assertThat(ResponseFraming.finalHead(r, HttpMethod.GET, HTTP11, true)).isEqualTo(Afterwards.CLOSE_CLIENT);
        assertThat(r.headers().get("connection")).isEqualTo("close");
    }

    @Test
    void anHttp10ClientThatKeepsItsConnectionIsToldSo() {
        HttpResponse r = head(200, "Content-Length", "5");
        assertThat(get(r, HTTP10)).isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(r.headers().get("connection")).isEqualTo("keep-alive");
        HttpResponse closing = head(200, "Content-Length", "5");
        assertThat(get(closing, HTTP10_CLOSE)).isEqualTo(Afterwards.CLOSE_CLIENT);
        assertThat(closing.headers().get("connection")).isEqualTo("close");
    }

    // ---------------------------------------------------------------- chunked bodies

    @Test
    void chunkedStaysChunkedForHttp11() {
        HttpResponse r = head(200, "Transfer-Encoding", "chunked");
        assertThat(get(r, HTTP11)).isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(r.headers().get("transfer-encoding")).isEqualTo("chunked");
        assertThat(r.headers().contains("connection")).isFalse();
    }

    @Test
    void aCodingBeforeChunkedStaysNamed() {
        HttpResponse r = head(200, "Transfer-Encoding", "gzip, chunked");
        assertThat(get(r, HTTP11)).isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(r.headers().get("transfer-encoding")).isEqualTo("gzip, chunked");
    }

    @Test
    void anHttp10ClientGetsAChunkedBodyUnchunkedAndAClosedConnection() {
        HttpResponse r = head(200, "Transfer-Encoding", "gzip, chunked");
        assertThat(get(r, HTTP10)).as("the backend's chunked body ends cleanly: its connection is reusable")
                .isEqualTo(Afterwards.CLOSE_CLIENT);
        assertThat(r.headers().contains("transfer-encoding")).isFalse();
        assertThat(r.headers().get("connection")).isEqualTo("close");
    }

    // ---------------------------------------------------------------- close-delimited bodies

    @Test
    void aBodyEndedByTheBackendClosingGoesChunkedToAnHttp11Client() {
        HttpResponse r = head(200, "Content-Type", "text/plain");
        assertThat(get(r, HTTP11)).isEqualTo(Afterwards.CLOSE_BACKEND);
        assertThat(r.headers().get("transfer-encoding")).isEqualTo("chunked");
        assertThat(r.headers().contains("connection")).isFalse();
    }

    @Test
    void aBodyEndedByTheBackendClosingEndsTheConnectionOfAnHttp10Client() {
        HttpResponse r = head(200, "Content-Type", "text/plain");
        assertThat(get(r, HTTP10)).isEqualTo(Afterwards.CLOSE_BOTH);
        assertThat(r.headers().contains("transfer-encoding")).isFalse();
        assertThat(r.headers().get("connection")).isEqualTo("close");
    }

    // ---------------------------------------------------------------- bodiless answers

    @Test
    void headAnswersKeepTheirFramingHeadersButHaveNoBody() {
        HttpResponse chunked = head(200, "Transfer-Encoding", "chunked");
        assertThat(ResponseFraming.finalHead(chunked, HttpMethod.HEAD, HTTP11, false)).isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(chunked.headers().get("transfer-encoding")).as("how the body would be framed")
                .isEqualTo("chunked");
        HttpResponse sized = head(200, "Content-Length", "1234");
        assertThat(ResponseFraming.finalHead(sized, HttpMethod.HEAD, HTTP11, false)).isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(sized.headers().get("content-length")).isEqualTo("1234");
        HttpResponse bare = head(200);
        assertThat(ResponseFraming.finalHead(bare, HttpMethod.HEAD, HTTP11, false))
                .as("no body follows a HEAD answer: nothing ends by close").isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(bare.headers().contains("transfer-encoding")).isFalse();
        HttpResponse toHttp10 = head(200, "Transfer-Encoding", "chunked");
        assertThat(ResponseFraming.finalHead(toHttp10, HttpMethod.HEAD, HTTP10, false))
                .isEqualTo(Afterwards.KEEP_BOTH);
        assertThat(toHttp10.headers().contains("transfer-encoding")).isFalse();
        assertThat(toHttp10.headers().get("connection")).isEqualTo("keep-alive");
    }

    @Test
    void noContentAndNotModifiedHaveNoBody() {
        for (int status : new int[]{204, 304}) {
            HttpResponse r = head(status, "ETag", "\"x\"");
            assertThat(get(r, HTTP11)).as("%d", status).isEqualTo(Afterwards.KEEP_BOTH);
            assertThat(r.headers().contains("transfer-encoding")).isFalse();
            HttpResponse old = head(status);
            assertThat(get(old, HTTP10)).as("%d to HTTP/1.0", status).isEqualTo(Afterwards.KEEP_BOTH);
            assertThat(old.headers().get("connection")).isEqualTo("keep-alive");
        }
    }

    // ---------------------------------------------------------------- interim and switching heads

    @Test
    void interimHeadsGoToHttp11ClientsWithoutHopByHopHeaders() {
        HttpResponse hints = head(103, "Link", "</style.css>; rel=preload", "Connection", "keep-alive");
        FullHttpResponse out = ResponseFraming.interimHead(hints, HTTP11);
        assertThat(out.status().code()).isEqualTo(103);
        assertThat(out.protocolVersion()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(out.headers().get("link")).isEqualTo("</style.css>; rel=preload");
        assertThat(out.headers().contains("connection")).isFalse();
        assertThat(out.content().readableBytes()).isZero();
        out.release();
    }

    @Test
    void http10ClientsGetNoInterimHeads() {
        assertThat(ResponseFraming.interimHead(head(100), HTTP10)).isNull();
        assertThat(ResponseFraming.interimHead(head(103, "Link", "</a>; rel=preload"), HTTP10)).isNull();
    }

    @Test
    void aSwitchKeepsItsProtocolAndSaysUpgrade() {
        HttpResponse ws = head(101, "Upgrade", "websocket", "Connection", "Upgrade, X-Hop", "X-Hop", "1",
                "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assertThat(ResponseFraming.switchHead(ws)).as("a websocket").isTrue();
        assertThat(ws.headers().get("upgrade")).isEqualTo("websocket");
        assertThat(ws.headers().get("connection")).isEqualTo("upgrade");
        assertThat(ws.headers().contains("x-hop")).isFalse();
        assertThat(ws.headers().get("sec-websocket-accept")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");

        HttpResponse other = head(101, "Upgrade", "IRC/6.9", "Connection", "Upgrade");
        assertThat(ResponseFraming.switchHead(other)).as("another protocol: a plain byte relay").isFalse();
        assertThat(other.headers().get("upgrade")).isEqualTo("IRC/6.9");
        assertThat(ResponseFraming.switchHead(head(101, "Upgrade", "WebSocket"))).as("any case").isTrue();
    }
}
