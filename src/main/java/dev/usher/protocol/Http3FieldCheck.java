package dev.usher.protocol;

import dev.usher.proxy.StreamProtocol;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.util.AsciiString;

import java.util.List;

/**
 * Marks an HTTP/3 request whose header section carries a connection-specific field as malformed (RFC 9114 §4.2):
 * Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, or TE with any value but "trailers". Netty's HTTP/3 codec
 * refuses only Connection and a first TE value other than "trailers" (resetting the stream; its HTTP/2 codec refuses
 * them all), and its conversion to HTTP/1.1 objects adds a Transfer-Encoding of its own, after which the client's can
 * no longer be told apart. Forwarded, a client's Transfer-Encoding next to its Content-Length reaches an HTTP/1.1
 * backend as both: a request-smuggling shape. So the check looks at the frame, before the conversion, and leaves the
 * answer (400) to the proxy handler ({@link StreamProtocol#MALFORMED}).
 *
 * <p>Sits on a request stream before {@code Http3FrameToHttpObjectCodec}; looks at the first HEADERS frame only
 * (trailers are stripped of hop-by-hop fields when forwarded). Stateless: one shared instance.
 */
@ChannelHandler.Sharable
final class Http3FieldCheck extends ChannelInboundHandlerAdapter {
    static final Http3FieldCheck INSTANCE = new Http3FieldCheck();

    /** Connection is not listed: Netty's codec resets a stream with it before this handler sees the frame. */
    private static final List<AsciiString> CONNECTION_SPECIFIC = List.of(HttpHeaderNames.KEEP_ALIVE,
            HttpHeaderNames.PROXY_CONNECTION, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE);

    private Http3FieldCheck() {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http3HeadersFrame frame && !ctx.channel().hasAttr(StreamProtocol.MALFORMED)
                && frame.headers().method() != null) {
            String reason = connectionSpecific(frame.headers());
            if (reason != null) {
                ctx.channel().attr(StreamProtocol.MALFORMED).set(reason);
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** The offending field's name, or null when the section has none. */
    static String connectionSpecific(Http3Headers headers) {
        for (AsciiString name : CONNECTION_SPECIFIC) {
            if (headers.contains(name)) {
                return name.toString();
            }
        }
        for (CharSequence te : headers.getAll(HttpHeaderNames.TE)) {
            if (!AsciiString.contentEqualsIgnoreCase(te.toString().trim(), HttpHeaderValues.TRAILERS)) {
                return HttpHeaderNames.TE.toString();
            }
        }
        return null;
    }
}
