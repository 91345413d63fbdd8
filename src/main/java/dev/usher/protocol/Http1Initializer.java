package dev.usher.protocol;

import dev.usher.config.Limits;
import dev.usher.config.UsherConfig;
import dev.usher.proxy.ClientTimeouts;
import dev.usher.proxy.Http1ProxyHandler;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpDecoderConfig;

/**
 * Assembles the pipeline of a plain-HTTP client connection: slowloris timeouts on raw bytes, the strict HTTP/1.1
 * codec, response compression, then the proxy. Limits and timeouts come from the route table current at accept time.
 */
public final class Http1Initializer extends ChannelInitializer<Channel> {
    private final RouteTableHolder routes;
    private final ConnectionLimiter limiter;
    private final CompressBudget compression = new CompressBudget();

    public Http1Initializer(RouteTableHolder routes, ConnectionLimiter limiter) {
        this.routes = routes;
        this.limiter = limiter;
        ResponseCompressor.zstdLoaded(); // load the native zstd library at start, not on the first connection
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!limiter.admit(ch)) {
            ch.close();
            return;
        }
        UsherConfig config = routes.get().config();
        ClientTimeouts timeouts = new ClientTimeouts(config.timeouts());
        ch.pipeline()
                .addLast(Http1ProxyHandler.TIMEOUTS_NAME, timeouts)
                .addLast(Http1ProxyHandler.CODEC_NAME, new Http1ServerCodec(decoderConfig(config.limits())))
                .addLast(Http1ProxyHandler.COMPRESSOR_NAME, new ResponseCompressor(compression))
                .addLast("proxy", new Http1ProxyHandler(routes, "http", timeouts));
    }

    static HttpDecoderConfig decoderConfig(Limits limits) {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(Math.min(limits.headerSize(), 8192))
                .setMaxHeaderSize(limits.headerSize())
                .setMaxChunkSize(64 * 1024)
                .setStrictLineParsing(true);
    }
}
