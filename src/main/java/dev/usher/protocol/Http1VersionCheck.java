package dev.usher.protocol;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

import java.nio.charset.StandardCharsets;

/**
 * Answers a request whose line names an HTTP version other than 1.0 and 1.1 ({@code GET / HTTP/9.9}, HTTP/2.0 or
 * HTTP/1.9 on an HTTP/1 connection) with 505 and closes. Netty's decoder accepts any {@code HTTP/x.y}, and such a
 * request was forwarded as HTTP/1.1 although its framing rules are unknown (RFC 9110 §2.5, §15.6.6). One instance
 * per connection: after the answer the rest of what the client sends is dropped.
 */
final class Http1VersionCheck extends ChannelInboundHandlerAdapter {
    static final String NAME = "http1-version";
    private static final byte[] BODY = "HTTP version not supported: use HTTP/1.1\n".getBytes(StandardCharsets.US_ASCII);

    private boolean refused;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && request.decoderResult().isSuccess()
                && !supported(request.protocolVersion())) {
            refused = true;
            ReferenceCountUtil.release(msg);
            ctx.channel().config().setAutoRead(true); // drain whatever follows until the close
            ctx.writeAndFlush(answer()).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    static boolean supported(HttpVersion version) {
        return version.majorVersion() == 1 && (version.minorVersion() == 0 || version.minorVersion() == 1);
    }

    private static FullHttpResponse answer() {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, Unpooled.wrappedBuffer(BODY));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, BODY.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
