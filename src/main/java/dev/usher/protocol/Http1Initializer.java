package dev.usher.protocol;

import dev.usher.observe.OpenConnections;
import dev.usher.observe.RequestObserver;
import dev.usher.observe.RequestRecorder;
import dev.usher.config.Limits;
import dev.usher.config.UsherConfig;
import dev.usher.proxy.ClientTimeouts;
import dev.usher.proxy.Http1ProxyHandler;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;

/**
 * Assembles the pipeline of a plain-HTTP client connection: slowloris timeouts on raw bytes, the strict HTTP/1.1
 * codec, response compression, then the proxy. Limits and timeouts come from the route table current at accept time.
 * Over TLS, {@link HttpsProtocols} adds the same handlers (through {@link #addHttp1Handlers}) once ALPN chose
 * HTTP/1.1.
 */
public final class Http1Initializer extends ChannelInitializer<Channel> {
    private final RouteTableHolder routes;
    private final ConnectionLimiter limiter;
    private final CompressBudget compression;
    private final RequestObserver observer;
    private final OpenConnections open;

    /** A listener with its own compression budget. */
    public Http1Initializer(RouteTableHolder routes, ConnectionLimiter limiter) {
        this(routes, limiter, new CompressBudget());
    }

    /** @param compression the cap on compression streams, shared with the other listeners */
    public Http1Initializer(RouteTableHolder routes, ConnectionLimiter limiter, CompressBudget compression) {
        this(routes, limiter, compression, null, null);
    }

    /**
     * @param observer told of each request as it ends, or null for none
     * @param open     counts this listener's open connections, or null
     */
    public Http1Initializer(RouteTableHolder routes, ConnectionLimiter limiter, CompressBudget compression,
                            RequestObserver observer, OpenConnections open) {
        this.routes = routes;
        this.limiter = limiter;
        this.compression = compression;
        this.observer = observer;
        this.open = open;
        ResponseCompressor.zstdLoaded(); // load the native zstd library at start, not on the first connection
    }

    @Override
    protected void initChannel(Channel ch) {
        if (!limiter.admit(ch)) {
            ch.close();
            return;
        }
        if (open != null) {
            open.track(ch);
        }
        addHttp1Handlers(ch.pipeline(), routes, compression, "http", observer, null);
    }

    /**
     * Adds the HTTP/1.1 handlers at the end of {@code pipeline}: on a fresh plain-HTTP connection, or after the
     * {@code SslHandler} of a TLS one.
     *
     * @param scheme   {@code http} or {@code https}: what the client used (X-Forwarded-Proto, HSTS, redirects)
     * @param observer told of each request as it ends, or null (then no recorder joins the pipeline)
     * @param altSvc   what HTTPS responses advertise in {@code Alt-Svc}, or null (plain HTTP: never)
     */
    static void addHttp1Handlers(ChannelPipeline pipeline, RouteTableHolder routes, CompressBudget compression,
                                 String scheme, RequestObserver observer, AltSvc altSvc) {
        UsherConfig config = routes.get().config();
        ClientTimeouts timeouts = new ClientTimeouts(config.timeouts());
        pipeline
                .addLast(Http1ProxyHandler.TIMEOUTS_NAME, timeouts)
                .addLast(Http1ProxyHandler.CODEC_NAME, new Http1ServerCodec(decoderConfig(config.limits())));
        if (altSvc != null) {
            pipeline.addLast(AltSvcHeader.NAME, new AltSvcHeader(altSvc));
        }
        if (observer != null) {
            // Between the codec and the compressor: sees response bytes as sent, after compression.
            pipeline.addLast(RequestRecorder.NAME, RequestRecorder.http1(observer, pipeline.channel()));
        }
        pipeline
                .addLast(Http1VersionCheck.NAME, new Http1VersionCheck())
                .addLast(Http1ProxyHandler.COMPRESSOR_NAME, new ResponseCompressor(compression))
                .addLast("proxy", new Http1ProxyHandler(routes, scheme, timeouts));
    }

    static HttpDecoderConfig decoderConfig(Limits limits) {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(Math.min(limits.headerSize(), 8192))
                .setMaxHeaderSize(limits.headerSize())
                .setMaxChunkSize(64 * 1024)
                .setStrictLineParsing(true);
    }
}
