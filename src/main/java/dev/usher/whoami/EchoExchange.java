package dev.usher.whoami;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * {@code /echo}: streams the request body back as the response body while it arrives. The response head goes out
 * at once: with the request's {@code Content-Length} when it had one, chunked when the request was chunked
 * (HTTP/1.1), {@code Content-Length: 0} when there is no body. {@code Content-Type} is copied from the request or
 * {@code application/octet-stream}.
 *
 * <p>Backpressure: each body part is written as it comes, and {@link #wantsContent()} is false while the channel is
 * not writable, so {@link WhoamiHandler} stops reading the request until the response side drains.
 */
final class EchoExchange implements Exchange {
    private final ExchangeContext context;
    private final ChannelHandlerContext ctx;

    EchoExchange(ExchangeContext context) {
        this.context = context;
        this.ctx = context.ctx();
        ctx.writeAndFlush(head(context)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    private static HttpResponse head(ExchangeContext context) {
        HttpRequest request = context.request();
        HttpResponse head = context.head(HttpResponseStatus.OK);
        String type = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, type != null ? type : HttpHeaderValues.APPLICATION_OCTET_STREAM);
        if (HttpUtil.isContentLengthSet(request)) {
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, HttpUtil.getContentLength(request));
        } else if (!HttpUtil.isTransferEncodingChunked(request)) {
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        } else if (context.responseVersion() == HttpVersion.HTTP_1_1) {
            HttpUtil.setTransferEncodingChunked(head, true);
        } else {
            // An HTTP/1.0 client cannot read chunked: end the body by closing the connection.
            HttpUtil.setKeepAlive(head, false);
        }
        return head;
    }

    @Override
    public void content(HttpContent content) {
        ByteBuf data = content.content();
        if (data.isReadable()) {
            // Hands the buffer (and with it the content's reference) to the outbound side.
            ctx.write(new DefaultHttpContent(data)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        } else {
            content.release();
        }
        if (content instanceof LastHttpContent) {
            context.finish(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT));
        } else {
            ctx.flush();
        }
    }

    @Override
    public boolean wantsContent() {
        return ctx.channel().isWritable();
    }
}
