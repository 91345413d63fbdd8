package dev.usher.protocol;

import com.github.luben.zstd.ZstdInputStream;
import dev.usher.config.Limits;
import dev.usher.proxy.ErrorPages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The compressor between Usher's real HTTP/1.1 server codec (in front) and a client codec reading what goes on the
 * wire; the test plays the proxy's part by writing responses.
 */
class CompressHandlerTest {
    private static final String[] WORDS = ("the quick brown fox jumps over a lazy dog while usher proxies streams of "
            + "chunks headers bodies vary etag cache client server request response 0 1 2 3 4 5 6 7 8 9 lorem ipsum "
            + "dolor sit amet {\"key\": \"value\", \"list\": [1, 2, 3]} <div class=\"row\"></div>").split(" ");

    private final List<Conn> conns = new ArrayList<>();

    @AfterEach
    void closeConnections() {
        for (Conn c : conns) {
            c.server.finishAndReleaseAll();
            c.client.finishAndReleaseAll();
        }
    }

    // ------------------------------------------------------------------ large streamed bodies

    @Test
    void gzipsALargeStreamedBodyByteExactWithoutHoldingIt() throws Exception {
        streamRoundTrip("gzip", false);
    }

    @Test
    void zstdCompressesALargeStreamedBodyByteExactWithoutHoldingIt() throws Exception {
        assertThat(ResponseCompressor.zstdLoaded()).as("zstd-jni's native library loads here").isTrue();
        streamRoundTrip("zstd", true);
    }

    /**
     * 20 MiB of text in 64 KiB pieces. Pieces are made only when the decompressor asks for more input, so neither
     * side ever holds the body; both ends are hashed on the fly.
     */
    private void streamRoundTrip(String coding, boolean directBuffers) throws Exception {
        Conn c = conn();
        c.send(get("/big", coding));
        int pieceSize = 64 * 1024;
        int pieces = 320;
        HttpResponse head = head("text/plain; charset=utf-8", (long) pieceSize * pieces);
        head.headers().set(HttpHeaderNames.ETAG, "\"big\"");
        c.respond(head);
        HttpResponse got = c.client.readInbound();
        assertThat(got.headers().get(HttpHeaderNames.CONTENT_ENCODING)).isEqualTo(coding);
        assertThat(got.headers().get(HttpHeaderNames.TRANSFER_ENCODING)).isEqualTo("chunked");
        assertThat(got.headers().contains(HttpHeaderNames.CONTENT_LENGTH)).isFalse();
        assertThat(got.headers().get(HttpHeaderNames.VARY)).isEqualTo("Accept-Encoding");
        assertThat(got.headers().get(HttpHeaderNames.ETAG)).isEqualTo("W/\"big\"");

        MessageDigest sent = MessageDigest.getInstance("SHA-256");
        Random random = new Random(42);
        int[] left = {pieces};
        PulledBody compressed = new PulledBody(c, () -> {
            assertThat(left[0]).as("the body ended before its last piece").isPositive();
            byte[] piece = text(pieceSize, random);
            sent.update(piece);
            ByteBuf buf = directBuffers ? Unpooled.directBuffer(piece.length).writeBytes(piece)
                    : Unpooled.wrappedBuffer(piece);
            left[0]--;
            return left[0] == 0 ? new DefaultLastHttpContent(buf) : new DefaultHttpContent(buf);
        });
        MessageDigest received = MessageDigest.getInstance("SHA-256");
        long total = 0;
        try (InputStream in = decoder(coding, compressed)) {
            byte[] buf = new byte[16 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                received.update(buf, 0, n);
                total += n;
            }
        }
        assertThat(left[0]).isZero();
        assertThat(total).isEqualTo((long) pieceSize * pieces);
        assertThat(received.digest()).isEqualTo(sent.digest());
        assertThat(compressed.count).isLessThan(total / 2);
    }

    @Test
    void eachPieceIsFlushedSoSlowStreamsStayLive() throws Exception {
        for (String coding : new String[] {"gzip", "zstd"}) {
            Conn c = conn();
            c.send(get("/events", coding));
            c.respond(head("text/event-stream", null));
            assertThat(c.client.<HttpResponse>readInbound().headers().get(HttpHeaderNames.CONTENT_ENCODING))
                    .isEqualTo(coding);
            byte[] event = "data: first event\n\n".getBytes(StandardCharsets.UTF_8);
            c.respond(new DefaultHttpContent(Unpooled.wrappedBuffer(event)));
            byte[] soFar = c.readContentSoFar();
            assertThat(decodePrefix(coding, soFar, event.length)).as(coding).isEqualTo(event);
            c.respond(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    // ------------------------------------------------------------------ choosing the coding

    @Test
    void prefersZstdAndFallsBackToGzipWithoutIt() throws Exception {
        byte[] body = text(8000, new Random(1));
        Conn withZstd = conn();
        withZstd.send(get("/", "gzip, deflate, br, zstd"));
        Response r = withZstd.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(r.encoding()).isEqualTo("zstd");
        assertThat(r.decoded()).isEqualTo(body);

        Conn withoutZstd = conn(new ResponseCompressor(false));
        withoutZstd.send(get("/", "gzip, deflate, br, zstd"));
        r = withoutZstd.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(r.encoding()).isEqualTo("gzip");
        assertThat(r.decoded()).isEqualTo(body);
    }

    @Test
    void pipelinedRequestsGetTheirOwnCodings() throws Exception {
        Conn c = conn();
        c.send(get("/1", "gzip"), get("/2", "zstd;q=1, gzip;q=0.5"), get("/3", null), get("/4", "identity"),
                get("/5", "br;q=1, gzip;q=0.1"));
        String[] expected = {"gzip", "zstd", null, null, "gzip"};
        for (int i = 0; i < expected.length; i++) {
            byte[] body = text(3000 + i, new Random(i));
            Response r = c.respondStreamed(head("application/json", (long) body.length), body);
            assertThat(r.encoding()).as("response %d", i + 1).isEqualTo(expected[i]);
            assertThat(r.decoded()).isEqualTo(body);
            assertThat(r.head.headers().get(HttpHeaderNames.VARY)).isEqualTo("Accept-Encoding");
        }
    }

    @Test
    void compressesAFullLocalResponseAndRecountsItsLength() throws Exception {
        Conn c = conn();
        c.send(get("/", "gzip"));
        byte[] body = text(5000, new Random(3));
        FullHttpResponse full = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND,
                Unpooled.wrappedBuffer(body));
        full.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html").set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        c.respond(full);
        Response r = c.next();
        assertThat(r.head.status()).isEqualTo(HttpResponseStatus.NOT_FOUND);
        assertThat(r.encoding()).isEqualTo("gzip");
        assertThat(r.head.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(r.body.length);
        assertThat(r.decoded()).isEqualTo(body);
    }

    // ------------------------------------------------------------------ responses left alone

    @Test
    void leavesAnEncodedBodyAlone() throws Exception {
        HttpResponse head = head("text/html", 4000L);
        head.headers().set(HttpHeaderNames.CONTENT_ENCODING, "br");
        assertUntouched(head, false);
    }

    @Test
    void compressesAnIdentityEncodedBody() throws Exception {
        Conn c = conn();
        c.send(get("/", "gzip"));
        byte[] body = text(4000, new Random(5));
        HttpResponse head = head("text/html", (long) body.length);
        head.headers().set(HttpHeaderNames.CONTENT_ENCODING, "identity");
        Response r = c.respondStreamed(head, body);
        assertThat(r.head.headers().getAll(HttpHeaderNames.CONTENT_ENCODING)).containsExactly("gzip");
        assertThat(r.decoded()).isEqualTo(body);
    }

    @Test
    void respectsNoTransform() throws Exception {
        HttpResponse head = head("application/json", 4000L);
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, "public, No-Transform");
        assertUntouched(head, false);
    }

    @Test
    void leavesRangesAlone() throws Exception {
        HttpResponse partial = head("text/plain", 4000L);
        partial.setStatus(HttpResponseStatus.PARTIAL_CONTENT);
        partial.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes 0-3999/10000");
        assertUntouched(partial, false);
        HttpResponse ranged = head("text/plain", 4000L);
        ranged.headers().set(HttpHeaderNames.CONTENT_RANGE, "bytes 0-3999/10000");
        assertUntouched(ranged, false);
    }

    @Test
    void leavesSmallBodiesAlone() throws Exception {
        assertUntouched(head("text/html", (long) CompressPolicy.MIN_LENGTH - 1), false);
    }

    @Test
    void leavesIncompressibleOrUntypedBodiesAlone() throws Exception {
        assertUntouched(head("image/png", 4000L), false);
        assertUntouched(head(null, 4000L), false);
    }

    @Test
    void leavesBodiesAloneWhenTheSiteForbids() throws Exception {
        Conn c = conn();
        c.send(get("/", "gzip"), get("/", "gzip"));
        byte[] body = text(4000, new Random(6));
        c.server.attr(ResponseCompressor.ALLOWED).set(false);
        Response first = c.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(first.encoding()).isNull();
        assertThat(first.head.headers().contains(HttpHeaderNames.VARY)).isFalse();
        assertThat(first.body).isEqualTo(body);
        // The setting was for that response only.
        assertThat(c.server.attr(ResponseCompressor.ALLOWED).get()).isNull();
        Response second = c.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(second.encoding()).isEqualTo("gzip");

        c.send(get("/", "gzip"));
        c.server.attr(ResponseCompressor.ALLOWED).set(true);
        assertThat(c.respondStreamed(head("text/html", (long) body.length), body).encoding()).isEqualTo("gzip");
    }

    @Test
    void addsVaryWhenTheClientDoesNotAcceptACoding() throws Exception {
        for (String accept : new String[] {null, "", "identity", "gzip;q=0", "br", "*;q=0"}) {
            Conn c = conn();
            c.send(get("/", accept));
            byte[] body = text(4000, new Random(7));
            HttpResponse head = head("text/css", (long) body.length);
            head.headers().set(HttpHeaderNames.ETAG, "\"v7\"");
            Response r = c.respondStreamed(head, body);
            assertThat(r.encoding()).as(accept).isNull();
            assertThat(r.body).isEqualTo(body);
            assertThat(r.head.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(body.length);
            assertThat(r.head.headers().get(HttpHeaderNames.VARY)).isEqualTo("Accept-Encoding");
            assertThat(r.head.headers().get(HttpHeaderNames.ETAG)).isEqualTo("\"v7\"");
        }
    }

    @Test
    void answersHeadWithoutCompressingButWithVary() {
        Conn c = conn();
        HttpRequest head = get("/", "gzip");
        head.setMethod(HttpMethod.HEAD);
        c.send(head);
        c.respond(head("text/html", 50_000L), LastHttpContent.EMPTY_LAST_CONTENT);
        Response r = c.next();
        assertThat(r.encoding()).isNull();
        assertThat(r.head.headers().get(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo("50000");
        assertThat(r.head.headers().get(HttpHeaderNames.VARY)).isEqualTo("Accept-Encoding");
        assertThat(r.body).isEmpty();
    }

    @Test
    void doesNotCompressForHttp10Clients() throws Exception {
        Conn c = conn();
        c.sendRaw("GET / HTTP/1.0\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n");
        byte[] body = text(4000, new Random(8));
        Response r = c.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(r.encoding()).isNull();
        assertThat(r.body).isEqualTo(body);
        assertThat(r.head.headers().get(HttpHeaderNames.VARY)).isEqualTo("Accept-Encoding");
    }

    @Test
    void mergesVaryAndWeakensTheEtagWhenCompressing() throws Exception {
        Conn c = conn();
        c.send(get("/", "gzip"));
        byte[] body = text(4000, new Random(9));
        HttpResponse head = head("text/html", (long) body.length);
        head.headers().add(HttpHeaderNames.VARY, "Origin").add(HttpHeaderNames.VARY, "Cookie")
                .set(HttpHeaderNames.ETAG, "\"abc\"");
        Response r = c.respondStreamed(head, body);
        assertThat(r.encoding()).isEqualTo("gzip");
        assertThat(r.head.headers().getAll(HttpHeaderNames.VARY)).containsExactly("Origin, Cookie, Accept-Encoding");
        assertThat(r.head.headers().get(HttpHeaderNames.ETAG)).isEqualTo("W/\"abc\"");

        c.send(get("/", "gzip"));
        head = head("text/html", (long) body.length);
        head.headers().set(HttpHeaderNames.VARY, "accept-encoding").set(HttpHeaderNames.ETAG, "W/\"weak\"");
        r = c.respondStreamed(head, body);
        assertThat(r.head.headers().getAll(HttpHeaderNames.VARY)).containsExactly("accept-encoding");
        assertThat(r.head.headers().get(HttpHeaderNames.ETAG)).isEqualTo("W/\"weak\"");
    }

    @Test
    void leavesBodilessStatusesAlone() {
        for (HttpResponseStatus status : new HttpResponseStatus[] {HttpResponseStatus.NO_CONTENT,
                HttpResponseStatus.NOT_MODIFIED}) {
            Conn c = conn();
            c.send(get("/", "gzip"));
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html").set(HttpHeaderNames.ETAG, "\"e\"");
            c.respond(head, LastHttpContent.EMPTY_LAST_CONTENT);
            Response r = c.next();
            assertThat(r.head.status()).isEqualTo(status);
            assertThat(r.encoding()).isNull();
            assertThat(r.head.headers().contains(HttpHeaderNames.VARY)).isFalse();
            assertThat(r.head.headers().get(HttpHeaderNames.ETAG)).isEqualTo("\"e\"");
        }
    }

    // ------------------------------------------------------------------ interim responses, upgrades, failures

    @Test
    void interimResponsesUseUpNeitherTheRequestNorThePermission() throws Exception {
        Conn c = conn();
        HttpRequest request = get("/", "gzip");
        request.headers().set(HttpHeaderNames.EXPECT, "100-continue");
        c.send(request, get("/next", "gzip"));
        c.server.attr(ResponseCompressor.ALLOWED).set(false);
        c.respond(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE,
                Unpooled.EMPTY_BUFFER));
        assertThat(c.next().head.status()).isEqualTo(HttpResponseStatus.CONTINUE);
        byte[] body = text(4000, new Random(10));
        Response first = c.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(first.encoding()).isNull();
        Response second = c.respondStreamed(head("text/html", (long) body.length), body);
        assertThat(second.encoding()).isEqualTo("gzip");
    }

    @Test
    void aSwitchToWebsocketsPassesAndTheHandlerLeavesCleanly() {
        EmbeddedChannel server = serverChannel(new ResponseCompressor());
        server.writeInbound(ascii("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Accept-Encoding: gzip\r\n\r\n"));
        releaseAll(server.inboundMessages());
        server.inboundMessages().clear();
        HttpResponse switching = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
        switching.headers().set(HttpHeaderNames.UPGRADE, "websocket").set(HttpHeaderNames.CONNECTION, "Upgrade");
        server.writeOutbound(switching);
        String wire = drainAscii(server);
        assertThat(wire).startsWith("HTTP/1.1 101 Switching Protocols\r\n").doesNotContainIgnoringCase("vary")
                .doesNotContainIgnoringCase("content-encoding").doesNotContainIgnoringCase("transfer-encoding");

        // What Http1ProxyHandler.switchToRelay does, plus the compressor (either order works).
        server.pipeline().remove("compress");
        server.pipeline().remove("http");
        server.writeOutbound(ascii("raw frame out"));
        assertThat(drainAscii(server)).isEqualTo("raw frame out");
        server.writeInbound(ascii("raw frame in"));
        ByteBuf in = server.readInbound();
        assertThat(in.toString(StandardCharsets.US_ASCII)).isEqualTo("raw frame in");
        in.release();
        assertThat(server.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aRequestThatFailedDecodingStillGetsItsPlaceInLine() throws Exception {
        // Netty's own failure (a header name with a space), and Usher's (obs-fold), each after a good request.
        for (String bad : new String[] {"GET /b HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n",
                "GET /b HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n"}) {
            Conn c = conn();
            List<HttpRequest> requests = c.sendRaw("GET /a HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n" + bad);
            assertThat(requests).hasSize(2);
            assertThat(requests.get(1).decoderResult().isFailure()).isTrue();
            byte[] body = text(4000, new Random(11));
            Response good = c.respondStreamed(head("text/html", (long) body.length), body);
            assertThat(good.encoding()).isEqualTo("gzip");
            assertThat(good.decoded()).isEqualTo(body);
            FullHttpResponse page = ErrorPages.response(HttpResponseStatus.BAD_REQUEST, true);
            String expected = page.content().toString(StandardCharsets.UTF_8);
            c.respond(page);
            Response refused = c.next();
            assertThat(refused.head.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
            assertThat(refused.encoding()).isNull();
            assertThat(new String(refused.body, StandardCharsets.UTF_8)).isEqualTo(expected);
            assertNoResponseOwed(c);
        }
    }

    @Test
    void aBodyThatFailedDecodingAddsNoRequest() {
        Conn c = conn();
        List<HttpRequest> requests = c.sendRaw("POST /a HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n"
                + "Transfer-Encoding: chunked\r\n\r\nZZ\r\n");
        assertThat(requests).hasSize(1);
        c.respond(ErrorPages.response(HttpResponseStatus.BAD_REQUEST, true));
        assertThat(c.next().head.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
        assertNoResponseOwed(c);
    }

    @Test
    void closingOrRemovingMidStreamFreesTheEncoder() {
        for (String coding : new String[] {"gzip", "zstd"}) {
            Conn closed = conn();
            closed.send(get("/", coding));
            closed.respond(head("text/plain", null), new DefaultHttpContent(Unpooled.wrappedBuffer(text(5000,
                    new Random(12)))));
            closed.server.close();
            assertThat(closed.server.isOpen()).isFalse();

            Conn removed = conn();
            removed.send(get("/", coding));
            removed.respond(head("text/plain", null), new DefaultHttpContent(Unpooled.directBuffer()
                    .writeBytes(text(5000, new Random(13)))));
            removed.server.pipeline().remove("compress");
            assertThat(removed.server.pipeline().get("compress")).isNull();
        }
    }

    // ------------------------------------------------------------------ gzip streams reuse their Deflater

    @Test
    void gzipResponsesReuseOneDeflaterAndEachIsAWholeMember() throws Exception {
        CompressBudget budget = new CompressBudget();
        Conn c = conn(new ResponseCompressor(false, budget));
        Random random = new Random(21);
        // Different bodies in different shapes: a stale dictionary, CRC or length from the previous one would show.
        for (int i = 0; i < 4; i++) {
            byte[] body = text(3000 + 7000 * i, random);
            c.send(get("/" + i, "gzip"));
            Response r = i % 2 == 0
                    ? c.respondStreamed(head("text/plain", (long) body.length), body)
                    : respondInOnePiece(c, body, i == 3);
            assertThat(r.encoding()).isEqualTo("gzip");
            assertThat(r.decoded()).as("response %d", i).isEqualTo(body);
            assertThat(budget.deflaters().idle()).as("given back after response %d", i).isEqualTo(1);
        }
        c.send(get("/empty", "gzip"));
        c.respond(head("text/plain", null), LastHttpContent.EMPTY_LAST_CONTENT);
        Response empty = c.next();
        assertThat(empty.encoding()).isEqualTo("gzip");
        assertThat(empty.decoded()).isEmpty();
        assertThat(budget.deflaters().idle()).isEqualTo(1);
    }

    private static Response respondInOnePiece(Conn c, byte[] body, boolean direct) {
        ByteBuf buf = direct ? Unpooled.directBuffer(body.length).writeBytes(body) : Unpooled.wrappedBuffer(body);
        c.respond(head("text/plain", (long) body.length), new DefaultLastHttpContent(buf));
        return c.next();
    }

    @Test
    void aGzipStreamCutShortGivesItsDeflaterBackForAFreshStream() throws Exception {
        CompressBudget budget = new CompressBudget();
        Conn cut = conn(new ResponseCompressor(false, budget));
        cut.send(get("/", "gzip"));
        cut.respond(head("text/plain", null), new DefaultHttpContent(Unpooled.wrappedBuffer(text(50_000,
                new Random(5)))));
        assertThat(budget.deflaters().idle()).as("lent while the body streams").isZero();
        cut.server.close();
        assertThat(budget.deflaters().idle()).isEqualTo(1);

        Conn next = conn(new ResponseCompressor(false, budget));
        byte[] body = text(20_000, new Random(6));
        next.send(get("/", "gzip"));
        Response r = next.respondStreamed(head("text/plain", (long) body.length), body);
        assertThat(r.decoded()).isEqualTo(body);
    }

    @Test
    void atMostAFewIdleDeflatersAreKept() {
        CompressDeflaters deflaters = new CompressDeflaters(ResponseCompressor.GZIP_LEVEL);
        List<java.util.zip.Deflater> lent = new ArrayList<>();
        for (int i = 0; i < CompressDeflaters.IDLE + 3; i++) {
            lent.add(deflaters.take());
        }
        lent.forEach(deflaters::giveBack);
        assertThat(deflaters.idle()).isEqualTo(CompressDeflaters.IDLE);
    }

    private void assertNoResponseOwed(Conn c) {
        HttpResponse extra = head("text/html", 0L);
        assertThatThrownBy(() -> c.server.writeOutbound(extra))
                .hasStackTraceContaining("cannot send more responses than requests");
    }

    private void assertUntouched(HttpResponse head, boolean vary) throws Exception {
        Conn c = conn();
        c.send(get("/", "gzip, zstd"));
        HttpHeaders before = head.headers().copy();
        byte[] body = text(Integer.parseInt(head.headers().get(HttpHeaderNames.CONTENT_LENGTH)), new Random(4));
        Response r = c.respondStreamed(head, body);
        assertThat(r.head.status()).isEqualTo(head.status());
        assertThat(r.body).isEqualTo(body);
        assertThat(r.head.headers().get(HttpHeaderNames.CONTENT_ENCODING))
                .isEqualTo(before.get(HttpHeaderNames.CONTENT_ENCODING));
        assertThat(r.head.headers().get(HttpHeaderNames.CONTENT_LENGTH))
                .isEqualTo(before.get(HttpHeaderNames.CONTENT_LENGTH));
        assertThat(r.head.headers().contains(HttpHeaderNames.VARY)).isEqualTo(vary);
    }

    // ------------------------------------------------------------------ plumbing

    private Conn conn() {
        return conn(new ResponseCompressor());
    }

    private Conn conn(ResponseCompressor compressor) {
        Conn c = new Conn(serverChannel(compressor));
        conns.add(c);
        return c;
    }

    private static EmbeddedChannel serverChannel(ResponseCompressor compressor) {
        EmbeddedChannel server = new EmbeddedChannel();
        server.pipeline()
                .addLast("http", new Http1ServerCodec(Http1Initializer.decoderConfig(Limits.DEFAULTS)))
                .addLast("compress", compressor);
        return server;
    }

    private static HttpRequest get(String uri, String acceptEncoding) {
        HttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        request.headers().set(HttpHeaderNames.HOST, "a.test");
        if (acceptEncoding != null) {
            request.headers().set(HttpHeaderNames.ACCEPT_ENCODING, acceptEncoding);
        }
        return request;
    }

    private static HttpResponse head(String contentType, Long length) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        if (contentType != null) {
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        if (length != null) {
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
        } else {
            head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
        }
        return head;
    }

    /** Compressible text: words from a small vocabulary, so it shrinks about as much as real pages do. */
    static byte[] text(int size, Random random) {
        byte[] out = new byte[size];
        int i = 0;
        while (i < size) {
            String word = WORDS[random.nextInt(WORDS.length)];
            for (int k = 0; k < word.length() && i < size; k++) {
                out[i++] = (byte) word.charAt(k);
            }
            if (i < size) {
                out[i++] = (byte) (random.nextInt(12) == 0 ? '\n' : ' ');
            }
        }
        return out;
    }

    private static InputStream decoder(String coding, InputStream in) throws IOException {
        return switch (coding) {
            case "gzip" -> new GZIPInputStream(in, 16 * 1024);
            case "zstd" -> new ZstdInputStream(in);
            default -> in;
        };
    }

    /** Decodes the start of a stream that has not ended yet: exactly {@code length} bytes must be there already. */
    private static byte[] decodePrefix(String coding, byte[] compressed, int length) throws Exception {
        if (coding.equals("gzip")) {
            Inflater inflater = new Inflater(true);
            try {
                inflater.setInput(compressed, 10, compressed.length - 10); // past the fixed gzip header
                byte[] out = new byte[length + 16];
                int n = inflater.inflate(out);
                return Arrays.copyOf(out, n);
            } finally {
                inflater.end();
            }
        }
        try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(compressed))) {
            in.setContinuous(true);
            return in.readNBytes(length + 16);
        }
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String drainAscii(EmbeddedChannel channel) {
        StringBuilder out = new StringBuilder();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return out.toString();
    }

    private static void releaseAll(Iterable<Object> messages) {
        for (Object m : messages) {
            ReferenceCountUtil.release(m);
        }
    }

    /** One response as the client decoded it; the body as it came over the wire. */
    record Response(HttpResponse head, byte[] body) {
        String encoding() {
            return head.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        }

        byte[] decoded() throws IOException {
            String coding = encoding();
            if (coding == null) {
                return body;
            }
            try (InputStream in = decoder(coding, new ByteArrayInputStream(body))) {
                return in.readAllBytes();
            }
        }
    }

    /** The server side of one connection and a client codec reading its bytes. */
    static final class Conn {
        final EmbeddedChannel server;
        final EmbeddedChannel client = new EmbeddedChannel(new HttpClientCodec());

        Conn(EmbeddedChannel server) {
            this.server = server;
        }

        /** Sends requests as a client would; returns the heads the server side decoded (their bodies dropped). */
        List<HttpRequest> send(HttpRequest... requests) {
            for (HttpRequest r : requests) {
                client.writeOutbound(r);
            }
            ByteBuf b;
            while ((b = client.readOutbound()) != null) {
                server.writeInbound(b);
            }
            return received();
        }

        /** Sends bytes straight to the server side (the client codec does not learn of these requests). */
        List<HttpRequest> sendRaw(String bytes) {
            server.writeInbound(ascii(bytes));
            return received();
        }

        private List<HttpRequest> received() {
            List<HttpRequest> heads = new ArrayList<>();
            Object m;
            while ((m = server.readInbound()) != null) {
                if (m instanceof HttpRequest r) {
                    heads.add(r);
                }
                ReferenceCountUtil.release(m);
            }
            return heads;
        }

        /** Writes response parts as the proxy would and moves the resulting bytes to the client. */
        void respond(HttpObject... parts) {
            for (HttpObject part : parts) {
                server.writeOutbound(part);
            }
            pump();
        }

        void pump() {
            ByteBuf b;
            while ((b = server.readOutbound()) != null) {
                client.writeInbound(b);
            }
        }

        Response respondStreamed(HttpResponse head, byte[] body) {
            int half = body.length / 2;
            respond(head, new DefaultHttpContent(Unpooled.wrappedBuffer(body, 0, half)),
                    new DefaultLastHttpContent(Unpooled.wrappedBuffer(body, half, body.length - half)));
            return next();
        }

        /** The next whole response the client decoded. */
        Response next() {
            HttpResponse head = client.readInbound();
            assertThat(head).as("a response head").isNotNull();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            for (;;) {
                HttpContent content = client.readInbound();
                assertThat(content).as("the rest of the response").isNotNull();
                body.writeBytes(ByteBufUtil.getBytes(content.content()));
                content.release();
                if (content instanceof LastHttpContent) {
                    return new Response(head, body.toByteArray());
                }
            }
        }

        /** Body bytes the client has received so far, of a response still going. */
        byte[] readContentSoFar() {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            HttpContent content;
            while ((content = client.readInbound()) != null) {
                body.writeBytes(ByteBufUtil.getBytes(content.content()));
                content.release();
            }
            return body.toByteArray();
        }
    }

    /**
     * A response body read from the client side, made piece by piece on the server side only when the reader needs
     * more: what the compressor emits for one piece is read before the next piece exists.
     */
    static final class PulledBody extends InputStream {
        private final Conn conn;
        private final java.util.function.Supplier<HttpContent> pieces;
        private ByteBuf current = Unpooled.EMPTY_BUFFER;
        private boolean last;
        long count;

        PulledBody(Conn conn, java.util.function.Supplier<HttpContent> pieces) {
            this.conn = conn;
            this.pieces = pieces;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            while (!current.isReadable()) {
                current.release();
                current = Unpooled.EMPTY_BUFFER;
                if (last) {
                    return -1;
                }
                HttpContent content = conn.client.readInbound();
                if (content == null) {
                    conn.respond(pieces.get());
                    continue;
                }
                current = content.content();
                last = content instanceof LastHttpContent;
            }
            int n = Math.min(len, current.readableBytes());
            current.readBytes(b, off, n);
            count += n;
            return n;
        }

        @Override
        public void close() {
            current.release();
            current = Unpooled.EMPTY_BUFFER;
        }
    }
}
