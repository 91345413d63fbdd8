package dev.usher.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Usher's stream codec gives what Netty's gives, for less: compared message by message on the same input. */
class Http2StreamHttpCodecTest {
    @Test
    void knownNamesInAnyCaseMapToSharedConstants() {
        assertThat((Object) Http2ResponseFields.lowerCase("Content-Type")).isSameAs(HttpHeaderNames.CONTENT_TYPE);
        assertThat((Object) Http2ResponseFields.lowerCase(new AsciiString("DATE"))).isSameAs(HttpHeaderNames.DATE);
        assertThat((Object) Http2ResponseFields.lowerCase("server")).isSameAs(HttpHeaderNames.SERVER);
        assertThat((Object) Http2ResponseFields.lowerCase("X-Unknown-Thing")).isEqualTo(new AsciiString("x-unknown-thing"));
        assertThat((Object) Http2ResponseFields.lowerCase("Content-Typo")).isEqualTo(new AsciiString("content-typo"));
    }

    @Test
    void plainResponseHeadsConvertAsNettyConvertsThem() {
        List<Consumer<HttpResponse>> heads = List.of(
                r -> r.headers().add("Server", "nginx").add("Date", "Mon, 30 Nov 2026 21:00:00 GMT")
                        .add("Content-Type", "text/plain").add("Content-Length", "325"),
                r -> r.headers().add(new AsciiString("Content-Type"), "text/html").add("X-Custom", "a")
                        .add("Set-Cookie", "a=1").add("set-cookie", "b=2").add("VARY", "Accept-Encoding"),
                r -> r.headers().add(HttpHeaderNames.CONTENT_LENGTH, "0").add(HttpHeaderNames.ETAG, "\"x\""),
                r -> { },
                // not plain: left to Netty's conversion, which drops or rewrites these
                r -> r.headers().add("Connection", "X-Drop").add("X-Drop", "1").add("Content-Type", "text/plain"),
                r -> r.headers().add("Content-Type", "text/plain").add("Host", "a.test").add("x-http2-stream-id", "3"),
                r -> r.headers().add("TE", "trailers, gzip").add("Cookie", "a=1; b=2").add("Keep-Alive", "5"),
                r -> r.headers().add("Transfer-Encoding", "chunked").add("Upgrade", "h2c"));
        for (HttpResponseStatus status : List.of(HttpResponseStatus.OK, HttpResponseStatus.NO_CONTENT,
                HttpResponseStatus.NOT_FOUND, HttpResponseStatus.BAD_GATEWAY)) {
            for (Consumer<HttpResponse> head : heads) {
                Supplier<HttpResponse> response = () -> {
                    HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
                    head.accept(r);
                    return r;
                };
                List<String> ours = fields(written(new Http2StreamHttpCodec(), response.get()));
                List<String> netty = fields(written(new Http2StreamFrameToHttpObjectCodec(true), response.get()));
                assertThat(ours).as("%s %s", status, response.get().headers()).isEqualTo(netty);
            }
        }
    }

    @Test
    void aRequestWithoutBodyHasNoBufferOfItsOwn() {
        FullHttpRequest ours = read(new Http2StreamHttpCodec());
        FullHttpRequest netty = read(new Http2StreamFrameToHttpObjectCodec(true));
        try {
            assertThat(ours.content()).isSameAs(Unpooled.EMPTY_BUFFER);
            assertThat(ours.method()).isEqualTo(netty.method());
            assertThat(ours.uri()).isEqualTo(netty.uri());
            assertThat(ours.protocolVersion()).isEqualTo(netty.protocolVersion());
            assertThat(text(ours.headers())).isEqualTo(text(netty.headers()));
            assertThat(ours.trailingHeaders().isEmpty()).isTrue();
        } finally {
            ReferenceCountUtil.release(ours);
            ReferenceCountUtil.release(netty);
        }
    }

    private static FullHttpRequest read(ChannelHandler codec) {
        EmbeddedChannel channel = new EmbeddedChannel(codec);
        Http2Headers headers = new DefaultHttp2Headers().method("GET").path("/a?b=c").scheme("https")
                .authority("app.test").add("accept", "*/*").add("cookie", "a=1").add("cookie", "b=2")
                .add("user-agent", "test");
        channel.writeInbound(new DefaultHttp2HeadersFrame(headers, true));
        FullHttpRequest request = channel.readInbound();
        assertThat((Object) channel.readInbound()).isNull();
        channel.finishAndReleaseAll();
        return request;
    }

    private static Http2HeadersFrame written(ChannelHandler codec, HttpResponse response) {
        EmbeddedChannel channel = new EmbeddedChannel(codec);
        channel.writeOutbound(response);
        Http2HeadersFrame frame = channel.readOutbound();
        assertThat((Object) channel.readOutbound()).isNull();
        channel.finishAndReleaseAll();
        return frame;
    }

    private static List<String> fields(Http2HeadersFrame frame) {
        assertThat(frame.isEndStream()).isFalse();
        return text(frame.headers());
    }

    private static List<String> text(
            Iterable<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> fields) {
        List<String> text = new ArrayList<>();
        for (Map.Entry<? extends CharSequence, ? extends CharSequence> field : fields) {
            text.add(field.getKey() + ": " + field.getValue());
        }
        return text;
    }
}
