package dev.usher.tls;

import dev.usher.cert.CertificateSource;
import dev.usher.cert.ChallengeAnswers;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The child handler of an HTTPS listener: puts a {@link TlsHandshakeRouter} first on every accepted connection.
 * Holds only immutable settings, so one instance serves every connection of a listener.
 */
public final class TlsInitializer extends ChannelInitializer<Channel> {
    /** The default limit for the ClientHello and, separately, for the rest of the handshake. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final CertificateSource source;
    private final ChallengeAnswers answers;
    private final TlsContexts contexts;
    private final Supplier<? extends ChannelHandler> afterTls;
    private final Duration helloTimeout;
    private final Duration handshakeTimeout;
    private final Passthrough passthrough;

    /** With 10-second limits on the ClientHello and on the handshake. */
    public TlsInitializer(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                          Supplier<? extends ChannelHandler> afterTls) {
        this(source, answers, contexts, afterTls, DEFAULT_TIMEOUT, DEFAULT_TIMEOUT);
    }

    /** With 10-second limits, relaying the connections of {@code passthrough}'s sites unopened. */
    public TlsInitializer(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                          Supplier<? extends ChannelHandler> afterTls, Passthrough passthrough) {
        this(source, answers, contexts, afterTls, DEFAULT_TIMEOUT, DEFAULT_TIMEOUT, passthrough);
    }

    /** See {@link TlsHandshakeRouter#TlsHandshakeRouter} for the parameters. */
    public TlsInitializer(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                          Supplier<? extends ChannelHandler> afterTls, Duration helloTimeout,
                          Duration handshakeTimeout) {
        this(source, answers, contexts, afterTls, helloTimeout, handshakeTimeout, Passthrough.NONE);
    }

    /** See {@link TlsHandshakeRouter#TlsHandshakeRouter} for the parameters. */
    public TlsInitializer(CertificateSource source, ChallengeAnswers answers, TlsContexts contexts,
                          Supplier<? extends ChannelHandler> afterTls, Duration helloTimeout,
                          Duration handshakeTimeout, Passthrough passthrough) {
        this.source = source;
        this.answers = answers;
        this.contexts = contexts;
        this.afterTls = afterTls;
        this.helloTimeout = helloTimeout;
        this.handshakeTimeout = handshakeTimeout;
        this.passthrough = passthrough;
        // Fail at construction, not on the first connection.
        new TlsHandshakeRouter(source, answers, contexts, afterTls, helloTimeout, handshakeTimeout);
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast("tls-router",
                new TlsHandshakeRouter(source, answers, contexts, afterTls, helloTimeout, handshakeTimeout,
                        passthrough));
    }
}
