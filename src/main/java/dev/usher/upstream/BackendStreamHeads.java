package dev.usher.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.HttpConversionUtil;

/**
 * On a stream to an HTTP/2 backend, after Netty's frame ↔ HTTP object codec: takes the conversion's own headers
 * ({@code x-http2-stream-id} and friends) out of what the backend sent, which describe this hop and must not reach
 * the client. A response that is all in one HEADERS frame (a gRPC error "trailers-only") stays one message, so that
 * it reaches an HTTP/2 client as one HEADERS frame too.
 */
final class BackendStreamHeads extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpResponse response) {
            removeConversionHeaders(response.headers());
        }
        if (msg instanceof LastHttpContent last) {
            removeConversionHeaders(last.trailingHeaders());
        }
        ctx.fireChannelRead(msg);
    }

    private static void removeConversionHeaders(HttpHeaders headers) {
        if (headers.isEmpty()) {
            return;
        }
        for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
            headers.remove(name.text());
        }
    }
}
