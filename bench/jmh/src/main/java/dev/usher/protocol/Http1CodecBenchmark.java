package dev.usher.protocol;

import dev.usher.bench.BenchConfigs;
import dev.usher.bench.Outbound;
import dev.usher.config.Limits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Usher's strict HTTP/1.1 server codec ({@link Http1ServerCodec}, as {@link Http1Initializer} configures it) in an
 * {@link EmbeddedChannel}. {@link #encodeResponseHead}: a typical response head (8 headers, body not included)
 * encoded to bytes. {@link #decodeRequestAndEncodeResponse}: one request-response turn of a keep-alive connection,
 * a typical browser GET decoded from bytes (obs-fold scan included) then the response head encoded; the codec
 * remembers each request's method for its response, so decoding alone cannot be repeated on one channel: decode
 * cost = the difference of the two. The decoded request's headers are read once (Host), as the proxy does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Http1CodecBenchmark {
    private static final AsciiString X_REQUEST_ID = AsciiString.cached("x-request-id");

    private EmbeddedChannel turnChannel;
    private EmbeddedChannel encodeChannel;
    private ByteBuf requestBytes;
    private HttpResponse response;

    @Setup
    public void setUp() {
        Limits limits = BenchConfigs.sites(1, null).limits();
        turnChannel = new EmbeddedChannel(new Http1ServerCodec(Http1Initializer.decoderConfig(limits)));
        encodeChannel = new EmbeddedChannel(new Http1ServerCodec(Http1Initializer.decoderConfig(limits)));
        requestBytes = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(
                BenchConfigs.BROWSER_GET.getBytes(StandardCharsets.ISO_8859_1)));
        // What a backend typically answers, as Usher passes it on (hop-by-hop headers already gone).
        response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, "5120")
                .set(HttpHeaderNames.DATE, "Sun, 30 Nov 2026 14:00:00 GMT")
                .set(HttpHeaderNames.CACHE_CONTROL, "no-cache, private")
                .set(HttpHeaderNames.ETAG, "\"5f3a-18c2b9e1\"")
                .set(HttpHeaderNames.VARY, HttpHeaderNames.ACCEPT_ENCODING)
                .set(X_REQUEST_ID, "0d6c2f0e-8b1f-4b53-9a1a-2f1d9a7c3e55")
                .set(HttpHeaderNames.SERVER, "whoami");
        if (decodeRequestAndEncodeResponse() == null) {
            throw new IllegalStateException("no request decoded");
        }
    }

    @TearDown
    public void tearDown() {
        turnChannel.finishAndReleaseAll();
        encodeChannel.finishAndReleaseAll();
    }

    @Benchmark
    public String decodeRequestAndEncodeResponse() {
        turnChannel.writeInbound(requestBytes.duplicate());
        HttpRequest request = turnChannel.readInbound();
        String host = request.headers().get(HttpHeaderNames.HOST);
        ReferenceCountUtil.release(turnChannel.readInbound()); // LastHttpContent.EMPTY_LAST_CONTENT
        turnChannel.writeOutbound(response, LastHttpContent.EMPTY_LAST_CONTENT);
        Outbound.release(turnChannel);
        return host;
    }

    @Benchmark
    public int encodeResponseHead() {
        encodeChannel.writeOutbound(response, LastHttpContent.EMPTY_LAST_CONTENT);
        return Outbound.release(encodeChannel);
    }
}
