package dev.usher.protocol;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import java.util.List;

/**
 * Makes HTTP/1.1-shaped response heads fit for an HTTP/2 stream, between the stream codec and the compressor:
 * removes the connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2) — a backend's Connection, Keep-Alive,
 * Transfer-Encoding, Upgrade, Proxy-Connection, and those the compressor or error pages add — and drops interim
 * responses other than 100 Continue, which Netty's stream codec would send with END_STREAM (a 103 is a hint only).
 * Netty's conversion drops the same headers again; this keeps the rule in Usher's hands and in one place.
 *
 * <p>Stateless: one shared instance.
 */
@ChannelHandler.Sharable
final class Http2ResponseHeads extends ChannelOutboundHandlerAdapter {
    static final Http2ResponseHeads INSTANCE = new Http2ResponseHeads();

    private static final List<CharSequence> CONNECTION_SPECIFIC = List.of(HttpHeaderNames.CONNECTION,
            HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE,
            HttpHeaderNames.PROXY_CONNECTION, AsciiString.cached("http2-settings"));

    private Http2ResponseHeads() {
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL && response.status().code() != 100) {
                ReferenceCountUtil.release(msg);
                promise.setSuccess();
                return;
            }
            strip(response.headers());
        }
        ctx.write(msg, promise);
    }

    static void strip(HttpHeaders headers) {
        for (int i = 0; i < CONNECTION_SPECIFIC.size(); i++) {
            headers.remove(CONNECTION_SPECIFIC.get(i));
        }
    }
}
