package dev.usher.protocol;

import dev.usher.config.Limits;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.*;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class CompressHardeningTest {
    private static CompressHandlerTest.Conn conn() {
        EmbeddedChannel server = new EmbeddedChannel();
        server.pipeline()
                .addLast("http", new Http1ServerCodec(Http1Initializer.decoderConfig(Limits.DEFAULTS)))
                .addLast("compress", new ResponseCompressor());
        return new CompressHandlerTest.Conn(server);
    }

    private static HttpRequest get(String ae) {
        HttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        r.headers().set(HttpHeaderNames.HOST, "a.test").set(HttpHeaderNames.ACCEPT_ENCODING, ae);
        return r;
    }

    /** A compressed body does not advertise byte ranges (they would be ranges of the identity body). */
    @Test
    void compressedResponseDropsAcceptRanges() {
        CompressHandlerTest.Conn c = conn();
        c.send(get("gzip"));
        byte[] body = CompressHandlerTest.text(4000, new Random(1));
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain").set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.ACCEPT_RANGES, "bytes")
                .set(HttpHeaderNames.LAST_MODIFIED, "Wed, 21 Oct 2015 07:28:00 GMT");
        CompressHandlerTest.Response r = c.respondStreamed(head, body);
        assertThat(r.encoding()).isEqualTo("gzip");
        assertThat(r.head().headers().contains(HttpHeaderNames.ACCEPT_RANGES)).isFalse();
    }

    /** A body with a transfer coding other than chunked is not content-coded on top. */
    @Test
    void transferCodedBodyIsLeftAlone() {
        CompressHandlerTest.Conn c = conn();
        c.send(get("gzip"));
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html")
                .set(HttpHeaderNames.TRANSFER_ENCODING, "gzip, chunked");
        c.server.writeOutbound(head);
        HttpResponse out = null;
        Object m;
        while ((m = c.server.readOutbound()) != null) {
            String wire = ((io.netty.buffer.ByteBuf) m).toString(StandardCharsets.US_ASCII);
            ((io.netty.buffer.ByteBuf) m).release();
            assertThat(wire).as("head on the wire").containsIgnoringCase("transfer-encoding: gzip, chunked")
                    .doesNotContainIgnoringCase("content-encoding");
        }
    }
}
