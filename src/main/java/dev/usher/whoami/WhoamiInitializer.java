package dev.usher.whoami;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerExpectContinueHandler;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;

/**
 * Assembles a whoami connection's pipeline: HTTP/1.x codec → one-message-per-read flow control → keep-alive
 * (closes after the response when the request asked for it) → {@code 100 Continue} → {@link WhoamiHandler}.
 * Also counts the connection and tracks it so {@link Whoami#close()} can close it.
 */
final class WhoamiInitializer extends ChannelInitializer<Channel> {
    static final String CODEC = "http";
    static final String FLOW_CONTROL = "flow-control";
    static final String KEEP_ALIVE = "keep-alive";
    static final String EXPECT_CONTINUE = "expect-continue";
    static final String WHOAMI = "whoami";

    /** Body parts of up to 64 KiB: as large as a socket read, so one read is usually one message. */
    private static final int MAX_CHUNK = 64 * 1024;

    /**
     * Requests the codec may decode ahead of their responses. It decodes a whole socket read (up to 64 KiB) at
     * once and more than that cannot arrive while whoami does not read, so this only bounds one read's worth.
     */
    private static final int MAX_PIPELINE_DEPTH = 4096;

    private final Identity identity;
    private final Counters counters;
    private final ChannelGroup connections;

    WhoamiInitializer(Identity identity, Counters counters, ChannelGroup connections) {
        this.identity = identity;
        this.counters = counters;
        this.connections = connections;
    }

    @Override
    protected void initChannel(Channel ch) {
        counters.connectionAccepted();
        connections.add(ch);
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(8 * 1024)
                .setMaxHeaderSize(32 * 1024)
                .setMaxChunkSize(MAX_CHUNK);
        ch.pipeline()
                .addLast(CODEC, new HttpServerCodec(decoder, MAX_PIPELINE_DEPTH))
                .addLast(FLOW_CONTROL, new FlowControlHandler())
                .addLast(KEEP_ALIVE, new HttpServerKeepAliveHandler())
                .addLast(EXPECT_CONTINUE, new HttpServerExpectContinueHandler())
                .addLast(WHOAMI, new WhoamiHandler(identity, counters));
    }
}
