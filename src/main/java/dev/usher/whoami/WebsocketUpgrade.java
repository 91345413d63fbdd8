package dev.usher.whoami;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import java.nio.charset.StandardCharsets;

/**
 * A request with {@code Upgrade: websocket} on any path: once the (empty) request body has ended, completes the
 * handshake and turns the connection into a {@link WebsocketEcho}. The HTTP-only handlers leave the pipeline,
 * {@link WebsocketEcho} and a {@link WebSocketFrameAggregator} take the place of {@link WhoamiHandler}, and the
 * handshaker swaps the HTTP codec for the websocket codec.
 */
final class WebsocketUpgrade implements Exchange {
    /** Largest frame and largest aggregated message accepted. */
    static final int MAX_MESSAGE = 16 * 1024 * 1024;

    private static final WebSocketDecoderConfig DECODER = WebSocketDecoderConfig.newBuilder()
            .maxFramePayloadLength(MAX_MESSAGE)
            .allowExtensions(false)
            .build();

    private final ExchangeContext context;

    WebsocketUpgrade(ExchangeContext context) {
        this.context = context;
    }

    static boolean isUpgrade(HttpRequest request) {
        return request.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    @Override
    public void content(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last) {
            upgrade();
        }
    }

    private void upgrade() {
        ChannelHandlerContext ctx = context.ctx();
        Channel channel = ctx.channel();
        HttpRequest head = context.request();
        FullHttpRequest request = new DefaultFullHttpRequest(head.protocolVersion(), head.method(), head.uri(),
                Unpooled.EMPTY_BUFFER, head.headers(), EmptyHttpHeaders.INSTANCE);
        String url = "ws://" + head.headers().get(HttpHeaderNames.HOST, "localhost") + head.uri();
        WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(url, "*", DECODER)
                .newHandshaker(request);
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(channel)
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        HttpHeaders extra = new DefaultHttpHeaders().set(ExchangeContext.X_WHOAMI, context.identity().name());
        ChannelPipeline pipeline = ctx.pipeline();
        try {
            // Throws (before touching the pipeline) when the request is not a valid handshake.
            handshaker.handshake(channel, request, extra, channel.newPromise()).addListener(f -> {
                if (f.isSuccess()) {
                    channel.read();
                } else {
                    channel.close();
                }
            });
        } catch (RuntimeException e) {
            FullHttpResponse bad = context.full(HttpResponseStatus.BAD_REQUEST,
                    Unpooled.copiedBuffer(e.getMessage() + "\n", StandardCharsets.UTF_8));
            bad.headers().set(HttpHeaderNames.CONTENT_LENGTH, bad.content().readableBytes());
            bad.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(bad).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        // The 101 has been written; nothing is read until the handshake future reads again, so the pipeline can
        // be rebuilt here. FlowControlHandler goes too: websocket reads are paced by WebsocketEcho itself.
        pipeline.remove(WhoamiInitializer.FLOW_CONTROL);
        pipeline.remove(WhoamiInitializer.KEEP_ALIVE);
        pipeline.remove(WhoamiInitializer.EXPECT_CONTINUE);
        pipeline.addAfter(ctx.name(), "ws-aggregator", new WebSocketFrameAggregator(MAX_MESSAGE));
        pipeline.addAfter("ws-aggregator", "ws-echo", new WebsocketEcho());
        pipeline.remove(ctx.name());
    }
}
