package dev.usher.tls;

import dev.usher.cert.CertificateSource;
import dev.usher.cert.ChallengeAnswers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslClientHelloHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * First handler of a TLS connection: reads the ClientHello, picks the certificate by SNI (or by the local address
 * when the client sent none) and the context by ALPN (TLS-ALPN-01 validations get their challenge certificate), then
 * replaces itself with an {@link SslHandler} followed by the caller's after-TLS handler. A server name that a
 * {@link Passthrough} site has is not terminated: its relay replaces this handler instead. A hello that names nothing
 * Usher serves is refused with a TLS alert and the connection closed, logged once at FINE.
 *
 * <p>Netty's {@link SslClientHelloHandler} gathers the hello across reads and across TLS records (up to 64 KiB) and
 * hands over the buffered bytes to the {@code SslHandler} when this handler is replaced. One instance per channel;
 * all methods run on the channel's event loop.
 */
public final class TlsHandshakeRouter extends SslClientHelloHandler<Decision> {
    /** The server name the connection was accepted for: its SNI host name, or its local IP address without SNI. */
    public static final AttributeKey<String> SERVER_NAME = AttributeKey.valueOf(TlsHandshakeRouter.class, "serverName");
    /** Pipeline names of what replaces the router. */
    public static final String SSL_HANDLER = "tls", AFTER_TLS = "after-tls", RELAY = "passthrough-relay";

    private static final System.Logger LOG = System.getLogger(TlsHandshakeRouter.class.getName());
    private static final byte ALERT = 21, FATAL = 2;

    private final CertificateChooser chooser;
    private final Passthrough passthrough;
    private final Supplier<? extends ChannelHandler> afterTls;
    private final long helloTimeoutMillis;
    private final long handshakeTimeoutMillis;
    private ScheduledFuture<?> helloTimer;
    /** Set once the connection is being closed: later bytes are dropped rather than looked at again. */
    private boolean refused;

    /**
     * @param afterTls         makes the handler that follows the {@code SslHandler} on a normal connection (typically
     *                         an {@code ApplicationProtocolNegotiationHandler}); called once per served connection
     * @param helloTimeout     how long a client has from connecting to sending its whole ClientHello
     * @param handshakeTimeout how long the TLS handshake may take after the ClientHello
     */
    public TlsHandshakeRouter(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                              Supplier<? extends ChannelHandler> afterTls, Duration helloTimeout,
                              Duration handshakeTimeout) {
        this(source, answers, contexts, afterTls, helloTimeout, handshakeTimeout, Passthrough.NONE);
    }

    /**
     * As the other constructor, with the passthrough sites: a ClientHello naming one is relayed, not terminated.
     */
    public TlsHandshakeRouter(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                              Supplier<? extends ChannelHandler> afterTls, Duration helloTimeout,
                              Duration handshakeTimeout, Passthrough passthrough) {
        this.chooser = new CertificateChooser(source, answers, contexts);
        this.passthrough = passthrough;
        this.afterTls = afterTls;
        this.helloTimeoutMillis = positiveMillis(helloTimeout, "helloTimeout");
        this.handshakeTimeoutMillis = positiveMillis(handshakeTimeout, "handshakeTimeout");
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            startHelloTimer(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        startHelloTimer(ctx);
        ctx.fireChannelActive();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (refused) {
            in.skipBytes(in.readableBytes());
            return;
        }
        super.decode(ctx, in, out);
    }

    @Override
    protected Future<Decision> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) {
        // The parent passes null for anything that is not a TLS ClientHello (plain HTTP, an alert, another record).
        Decision decision;
        if (clientHello == null) {
            decision = Decision.refuse(null, -1, "not a TLS ClientHello");
        } else {
            ClientHello hello = ClientHello.parse(clientHello);
            ChannelHandler relay = hello == null || hello.serverName() == null ? null
                    : passthrough.relayFor(hello.serverName());
            decision = hello == null
                    ? Decision.refuse(null, Decision.DECODE_ERROR, "malformed ClientHello")
                    : relay != null ? Decision.relay(hello.serverName(), relay)
                    : chooser.choose(hello, localAddress(ctx));
        }
        return ctx.executor().newSucceededFuture(decision);
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, Future<Decision> future) {
        cancelHelloTimer();
        Decision decision = future.getNow();
        if (decision.relay() != null) {
            // Passthrough: the relay replaces this handler, which hands it the buffered ClientHello as it leaves.
            ctx.channel().attr(SERVER_NAME).set(decision.serverName());
            ctx.pipeline().replace(this, RELAY, decision.relay());
        } else if (decision.served()) {
            route(ctx, decision);
        } else {
            refuse(ctx, decision.alert(), decision.reason() + (decision.serverName() == null ? "" : " for "
                    + decision.serverName()));
        }
    }

    /** Errors of this handler's own decoding (not TLS, an oversized hello): expected from scanners, so FINE. */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        refuse(ctx, -1, "unreadable ClientHello (" + cause.getClass().getSimpleName() + ")");
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        cancelHelloTimer();
        super.handlerRemoved0(ctx);
    }

    private void route(ChannelHandlerContext ctx, Decision decision) {
        ctx.channel().attr(SERVER_NAME).set(decision.serverName());
        SslHandler ssl = decision.context().newHandler(ctx.alloc());
        try {
            ssl.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
            ChannelPipeline pipeline = ctx.pipeline();
            // Followers first, so that whatever the SslHandler does with the buffered hello finds them in place.
            pipeline.addAfter(ctx.name(), HandshakeFailures.NAME, new HandshakeFailures());
            if (decision.challenge()) {
                // RFC 8737: the validator only looks at the certificate and then closes; close if it does not.
                ssl.handshakeFuture().addListener(f -> ctx.channel().close());
            } else {
                pipeline.addAfter(HandshakeFailures.NAME, AFTER_TLS, afterTls.get());
            }
            pipeline.replace(this, SSL_HANDLER, ssl);
            ssl = null;
        } finally {
            if (ssl != null) {
                // Not in the pipeline, so the SslHandler never took ownership of its (possibly native) engine.
                ReferenceCountUtil.safeRelease(ssl.engine());
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, int alert, String reason) {
        if (refused) {
            return;
        }
        refused = true;
        cancelHelloTimer();
        LOG.log(System.Logger.Level.DEBUG, "TLS: closing {0}: {1}", ctx.channel().remoteAddress(), reason);
        if (alert < 0 || !ctx.channel().isActive()) {
            ctx.close();
            return;
        }
        // A plaintext fatal alert record, as a server sends before its ServerHello; 0x0303 as TLS 1.3 asks.
        ByteBuf record = Unpooled.wrappedBuffer(new byte[] {ALERT, 3, 3, 0, 2, FATAL, (byte) alert});
        ctx.writeAndFlush(record).addListener(ChannelFutureListener.CLOSE);
    }

    private void startHelloTimer(ChannelHandlerContext ctx) {
        if (helloTimer == null && !refused) {
            helloTimer = ctx.executor().schedule(() -> refuse(ctx, -1, "no ClientHello within "
                    + helloTimeoutMillis + " ms"), helloTimeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void cancelHelloTimer() {
        if (helloTimer != null) {
            helloTimer.cancel(false);
        }
    }

    private static String localAddress(ChannelHandlerContext ctx) {
        // NetUtil gives the compressed IPv6 form without brackets or zone ("::1"), as certificates name it.
        return ctx.channel().localAddress() instanceof InetSocketAddress address && address.getAddress() != null
                ? NetUtil.toAddressString(address.getAddress())
                : null;
    }

    private static long positiveMillis(Duration duration, String what) {
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + duration);
        }
        return duration.toMillis();
    }
}
