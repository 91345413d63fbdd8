package dev.usher.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Netty's HTTP/1.1 server codec, made strict where request smuggling lives. Netty already rejects Content-Length
 * with Transfer-Encoding, conflicting Content-Lengths, a non-final chunked coding and bad chunk sizes; this adds
 * the rejection of obs-fold (a header line continued on the next line, RFC 9112 §5.2), which Netty would join into
 * one value while other servers may not. Like {@code HttpServerCodec}, the encoder remembers which requests were
 * HEAD so their responses carry no body.
 */
final class Http1ServerCodec extends CombinedChannelDuplexHandler<HttpRequestDecoder, HttpResponseEncoder> {
    /** Longest prefix scanned for obs-fold; a longer head fails the decoder's own size limit anyway. */
    private final int scanLimit;
    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>(4);

    Http1ServerCodec(HttpDecoderConfig config) {
        this.scanLimit = config.getMaxInitialLineLength() + config.getMaxHeaderSize() + 4;
        init(new StrictRequestDecoder(config), new ResponseEncoder());
    }

    private final class StrictRequestDecoder extends HttpRequestDecoder {
        private boolean atMessageStart = true;
        private boolean headStarted;
        private boolean failed;

        StrictRequestDecoder(HttpDecoderConfig config) {
            super(config);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            if (failed) {
                buffer.skipBytes(buffer.readableBytes());
                return;
            }
            // Netty consumes a head line by line, so a head split over reads resumes at the start of a line: one that
            // starts with a space or tab continues the previous line (obs-fold split across two reads).
            boolean foldAtResume = atMessageStart && headStarted && buffer.isReadable()
                    && (buffer.getByte(buffer.readerIndex()) == ' ' || buffer.getByte(buffer.readerIndex()) == '\t');
            if (atMessageStart && (foldAtResume || ObsFold.find(buffer, scanLimit))) {
                failed = true;
                buffer.skipBytes(buffer.readableBytes());
                FullHttpRequest bad = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/bad-request",
                        Unpooled.EMPTY_BUFFER);
                bad.setDecoderResult(DecoderResult.failure(
                        new IllegalArgumentException("obs-fold (a folded header line) is not accepted")));
                methods.add(HttpMethod.GET);
                out.add(bad);
                return;
            }
            int before = out.size();
            int readerBefore = buffer.readerIndex();
            super.decode(ctx, buffer, out);
            if (atMessageStart && buffer.readerIndex() > readerBefore && out.size() == before) {
                headStarted = true; // part of a head consumed, the rest still to come
            }
            for (int i = before; i < out.size(); i++) {
                Object msg = out.get(i);
                if (msg instanceof HttpRequest request) {
                    methods.add(request.method());
                    atMessageStart = false;
                    headStarted = false;
                }
                if (msg instanceof LastHttpContent) {
                    atMessageStart = true;
                }
            }
        }
    }

    private final class ResponseEncoder extends HttpResponseEncoder {
        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            if (msg.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                return super.isContentAlwaysEmpty(msg);
            }
            HttpMethod method = methods.poll();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }
    }
}
