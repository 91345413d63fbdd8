package dev.usher.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.codec.http2.HttpConversionUtil;

import java.util.List;

/**
 * Netty's HTTP/2 stream frame ↔ HTTP object codec (server side, headers validated), with two shortcuts for the
 * commonest messages. A response head with plain headers becomes HTTP/2 fields without Netty's name copies
 * ({@link Http2ResponseFields}). HEADERS with END_STREAM (a GET) becomes a {@code FullHttpRequest} whose empty body is
 * {@link Unpooled#EMPTY_BUFFER}. Netty's codec allocates an empty buffer from the channel's allocator for it, which
 * under the launcher's unpooled allocator is a native malloc and free plus about 300 bytes of wrapper objects per
 * request. The head's conversion (pseudo-headers, {@code :authority} to Host, cookies, validation and its errors) is
 * Netty's own {@link HttpConversionUtil#toFullHttpRequest}; everything else is the superclass's.
 *
 * <p>One instance per stream, as the superclass keeps per-channel state.
 */
final class Http2StreamHttpCodec extends Http2StreamFrameToHttpObjectCodec {
    Http2StreamHttpCodec() {
        super(true, true);
    }

    /**
     * A final response head with plain headers (the usual case) is converted by {@link Http2ResponseFields}, without
     * Netty's per-header name copies; anything else by the superclass.
     */
    @Override
    protected void encode(ChannelHandlerContext ctx, HttpObject obj, List<Object> out) throws Exception {
        if (obj instanceof HttpResponse response && !(obj instanceof HttpContent)
                && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            Http2Headers fields = Http2ResponseFields.of(response);
            if (fields != null) {
                out.add(new DefaultHttp2HeadersFrame(fields, false));
                return;
            }
        }
        super.encode(ctx, obj, out);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, Http2StreamFrame frame, List<Object> out) throws Exception {
        if (frame instanceof Http2HeadersFrame headersFrame && headersFrame.isEndStream()
                && headersFrame.headers().method() != null && headersFrame.headers().status() == null) {
            Http2Headers headers = headersFrame.headers();
            Http2FrameStream stream = headersFrame.stream();
            out.add(HttpConversionUtil.toFullHttpRequest(stream == null ? 0 : stream.id(), headers,
                    Unpooled.EMPTY_BUFFER, true));
        } else {
            super.decode(ctx, frame, out);
        }
    }
}
