package dev.usher.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;

/**
 * The after-TLS handler of the tests: answers each line with "sni=NAME alpn=PROTOCOL tls=VERSION line=LINE", and an
 * HTTP/1.1 GET (for curl) with one 200 response carrying the same facts, then closes.
 */
final class InfoResponder extends ChannelInboundHandlerAdapter {
    private final StringBuilder pending = new StringBuilder();
    private boolean http;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        pending.append(buf.toString(StandardCharsets.ISO_8859_1));
        buf.release();
        int end;
        while ((end = pending.indexOf("\n")) >= 0) {
            String line = pending.substring(0, end).strip();
            pending.delete(0, end + 1);
            if (line.startsWith("GET ")) {
                http = true;
            } else if (http && line.isEmpty()) {
                String body = info(ctx) + "\n";
                String response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length()
                        + "\r\nConnection: close\r\n\r\n" + body;
                ctx.writeAndFlush(Unpooled.copiedBuffer(response, StandardCharsets.ISO_8859_1))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            } else if (!http) {
                ctx.writeAndFlush(Unpooled.copiedBuffer(info(ctx) + " line=" + line + "\n", StandardCharsets.UTF_8));
            }
        }
    }

    private static String info(ChannelHandlerContext ctx) {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        return "sni=" + ctx.channel().attr(TlsHandshakeRouter.SERVER_NAME).get() + " alpn=" + ssl.applicationProtocol()
                + " tls=" + ssl.engine().getSession().getProtocol();
    }
}
