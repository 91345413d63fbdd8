package dev.usher.protocol;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;

/**
 * Puts {@code Alt-Svc} on every final response of an HTTPS connection over TCP (HTTP/1.1 or an HTTP/2 stream) while
 * HTTP/3 is offered ({@link AltSvc}). Usher's value replaces one the backend sent: only Usher knows which protocols
 * and ports its clients can reach it on. While HTTP/3 is off, a backend's header passes unchanged.
 *
 * <p>Stateless apart from the shared {@link AltSvc}: one instance per listener set-up.
 */
@ChannelHandler.Sharable
final class AltSvcHeader extends ChannelOutboundHandlerAdapter {
    static final String NAME = "alt-svc";

    private final AltSvc altSvc;

    AltSvcHeader(AltSvc altSvc) {
        this.altSvc = altSvc;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            String value = altSvc.value();
            if (value != null) {
                response.headers().set(HttpHeaderNames.ALT_SVC, value);
            }
        }
        ctx.write(msg, promise);
    }
}
