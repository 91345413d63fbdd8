package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

import javax.net.ssl.SSLException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Opens a connection to a backend ready for HTTP: TCP, then for {@code https://} the TLS handshake, whose ALPN
 * answer says which protocol follows. The caller's {@link Ready} installs that protocol's handlers before any of the
 * backend's bytes are read. Failures of the handshake are reported by what went wrong with the certificate
 * ({@link TlsFailures}), since that is what a user can fix.
 */
final class BackendConnector {
    /** The protocol a new backend connection speaks. */
    enum Protocol { HTTP1, H2 }

    /** Installs the handlers of the chosen protocol at the end of the connection's pipeline. */
    @FunctionalInterface
    interface Ready {
        void ready(Channel channel, Protocol protocol);
    }

    /** A TLS handshake with a backend failed; the message names why. */
    static final class BackendTlsException extends SSLException {
        BackendTlsException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private BackendConnector() {
    }

    /**
     * Connects to {@code pool}'s backend on {@code loop}. The future completes with the protocol once
     * {@code ready} has set the pipeline up, or fails (refused, timed out, TLS, or an HTTP/2-only backend that did
     * not agree to h2).
     *
     * @param http1Only offer only http/1.1 to an https:// backend (a websocket upgrade)
     */
    static Future<Protocol> connect(UpstreamPool pool, EventLoop loop, Duration timeout, boolean http1Only,
                                    boolean autoRead, Ready ready) {
        Promise<Protocol> promise = loop.newPromise();
        UpstreamAddress address = pool.address();
        Bootstrap bootstrap = new Bootstrap()
                .group(loop)
                .channel(pool.transport().socketChannel())
                .resolver(pool.resolver())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.AUTO_READ, autoRead)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) throws SSLException {
                        switch (address.scheme()) {
                            case HTTP -> ready.ready(ch, Protocol.HTTP1);
                            case H2C -> ready.ready(ch, Protocol.H2);
                            case HTTPS -> {
                                ch.pipeline().addLast("tls", pool.tls().newHandler(ch.alloc(), address, http1Only,
                                        timeout));
                                ch.pipeline().addLast("alpn", new Negotiation(address, http1Only, ready, promise));
                            }
                        }
                    }
                });
        ChannelFuture connect = bootstrap.connect(InetSocketAddress.createUnresolved(address.host(), address.port()));
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                promise.tryFailure(f.cause());
            } else if (address.scheme() != dev.usher.config.UpstreamScheme.HTTPS) {
                promise.trySuccess(address.scheme() == dev.usher.config.UpstreamScheme.H2C ? Protocol.H2
                        : Protocol.HTTP1);
            } else if (!autoRead) {
                connect.channel().read(); // the handshake's first answer
            }
        });
        promise.addListener(f -> {
            if (!f.isSuccess()) {
                connect.channel().close();
            }
        });
        return promise;
    }

    /** After the handshake: the protocol ALPN chose, or http/1.1 when the backend chose none. */
    private static final class Negotiation extends ApplicationProtocolNegotiationHandler {
        private final UpstreamAddress address;
        private final boolean http1Only;
        private final Ready ready;
        private final Promise<Protocol> promise;

        Negotiation(UpstreamAddress address, boolean http1Only, Ready ready, Promise<Protocol> promise) {
            super(ApplicationProtocolNames.HTTP_1_1);
            this.address = address;
            this.http1Only = http1Only;
            this.ready = ready;
            this.promise = promise;
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            boolean h2 = ApplicationProtocolNames.HTTP_2.equals(protocol) && !http1Only;
            if (!h2 && !address.tls().alpn().contains(ApplicationProtocolNames.HTTP_1_1) && !http1Only) {
                promise.tryFailure(new BackendTlsException("the backend did not agree to HTTP/2 (ALPN chose "
                        + protocol + "); add http/1.1 to upstream_tls.alpn", null));
                return;
            }
            Protocol chosen = h2 ? Protocol.H2 : Protocol.HTTP1;
            ready.ready(ctx.channel(), chosen);
            promise.trySuccess(chosen);
        }

        @Override
        protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            String name = address.tls().serverName() != null ? address.tls().serverName() : address.host();
            promise.tryFailure(new BackendTlsException(TlsFailures.describe(cause, name), cause));
            ctx.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!promise.isDone()) {
                handshakeFailure(ctx, cause);
            } else {
                ctx.fireExceptionCaught(cause);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            promise.tryFailure(new BackendTlsException("the backend closed the connection during the TLS handshake",
                    null));
            super.channelInactive(ctx);
        }
    }
}
