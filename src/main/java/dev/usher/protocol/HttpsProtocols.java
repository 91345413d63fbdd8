package dev.usher.protocol;

import dev.usher.observe.RequestObserver;
import dev.usher.route.RouteTableHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;

import java.lang.System.Logger.Level;

/**
 * The TLS layer's hand-off to HTTP: placed right after the {@code SslHandler} of an HTTPS connection, it waits for
 * the handshake and installs the pipeline for the protocol ALPN chose — HTTP/2 for {@code h2}, otherwise (ALPN
 * {@code http/1.1} or none) the same HTTP/1.1 handlers as the plain listener, with scheme {@code https}. It then
 * leaves the pipeline; bytes that came with the handshake are passed on to the new handlers.
 *
 * <p>One instance per connection (not sharable). The TLS context must offer ALPN {@code h2} and {@code http/1.1}.
 * Connection limits are the TLS layer's business (see {@link ConnectionLimiter#admit}), before the handshake.
 */
public final class HttpsProtocols extends ApplicationProtocolNegotiationHandler {
    private static final System.Logger LOG = System.getLogger(HttpsProtocols.class.getName());

    private final RouteTableHolder routes;
    private final CompressBudget compression;
    private final RequestObserver observer;
    /** What to advertise in {@code Alt-Svc}, or null for nothing. */
    private final AltSvc altSvc;

    /**
     * @param routes      the current route table (limits and timeouts are read from it at hand-off)
     * @param compression the cap on compression streams, shared by all listeners
     */
    public HttpsProtocols(RouteTableHolder routes, CompressBudget compression) {
        this(routes, compression, null);
    }

    /** @param observer told of each request as it ends, or null for none */
    public HttpsProtocols(RouteTableHolder routes, CompressBudget compression, RequestObserver observer) {
        this(routes, compression, observer, null);
    }

    /** @param altSvc what responses advertise in {@code Alt-Svc} (HTTP/3), or null for nothing */
    public HttpsProtocols(RouteTableHolder routes, CompressBudget compression, RequestObserver observer,
                          AltSvc altSvc) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.routes = routes;
        this.compression = compression;
        this.observer = observer;
        this.altSvc = altSvc;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        super.handlerAdded(ctx);
        if (ctx.channel().isActive()) {
            startReading(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        startReading(ctx);
        super.channelActive(ctx);
    }

    /**
     * With auto-read off (Usher's listeners), nothing would ask for the client's first handshake bytes: the
     * {@code SslHandler} asks for more only once a read came. One read here starts the handshake.
     */
    private static void startReading(ChannelHandlerContext ctx) {
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            Http2Pipeline.install(ctx.pipeline(), routes, compression, observer, altSvc);
        } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
            Http1Initializer.addHttp1Handlers(ctx.pipeline(), routes, compression, "https", observer, altSvc);
        } else {
            throw new IllegalStateException("unsupported application protocol: " + protocol);
        }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        // Scanners, old clients and unknown names fail handshakes all day: not worth a warning with a stack.
        LOG.log(Level.DEBUG, "TLS handshake with {0} failed: {1}", ctx.channel().remoteAddress(), cause);
        ctx.close();
    }

    /**
     * Ends an HTTPS connection for shutdown: an HTTP/2 connection sends GOAWAY(NO_ERROR) at once, refuses new
     * streams and closes when its open streams are done (at most {@value Http2Pipeline#GRACEFUL_SHUTDOWN_MILLIS} ms
     * later); any other connection (HTTP/1.1, or still in its handshake) is closed now. Thread-safe.
     */
    public static ChannelFuture closeGracefully(Channel connection) {
        return connection.close();
    }
}
