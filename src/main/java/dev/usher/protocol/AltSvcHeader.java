package dev.usher.protocol;

import dev.usher.tls.TlsHandshakeRouter;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.util.NetUtil;

/**
 * Puts {@code Alt-Svc} on every final response of an HTTPS connection over TCP (HTTP/1.1 or an HTTP/2 stream) while
 * HTTP/3 is offered ({@link AltSvc}). Usher's value replaces one the backend sent: only Usher knows which protocols
 * and ports its clients can reach it on. While HTTP/3 is off, a backend's header passes unchanged.
 *
 * <p>Not on a connection made without SNI (a site named by its IP address): a QUIC handshake needs the server name
 * to pick a certificate, so a browser sent there would only fail over to TCP again.
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
            if (value != null && cameWithServerName(ctx.channel())) {
                response.headers().set(HttpHeaderNames.ALT_SVC, value);
            }
        }
        ctx.write(msg, promise);
    }

    private static boolean cameWithServerName(Channel channel) {
        Channel connection = channel.parent() != null ? channel.parent() : channel; // an HTTP/2 stream's connection
        String name = connection.attr(TlsHandshakeRouter.SERVER_NAME).get();
        return name == null || !NetUtil.isValidIpV4Address(name) && !NetUtil.isValidIpV6Address(name);
    }
}
