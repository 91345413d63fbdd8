package dev.usher.tls;

import dev.usher.cert.CertifiedKey;
import dev.usher.cert.ChallengeAnswers;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** A real TLS listener on 127.0.0.1 with a map as its certificate source and {@link InfoResponder} after TLS. */
final class TlsServer implements AutoCloseable {
    final Map<String, CertifiedKey> certificates = new ConcurrentHashMap<>();
    final ChallengeAnswers answers = new ChallengeAnswers();
    final TlsContexts contexts;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final Channel channel;

    TlsServer(boolean openSsl, Duration helloTimeout) throws InterruptedException {
        contexts = new TlsContexts(TlsContexts.HTTP_PROTOCOLS, openSsl);
        TlsInitializer initializer = new TlsInitializer(certificates::get, answers, contexts, InfoResponder::new,
                helloTimeout, Duration.ofSeconds(5));
        channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).childHandler(initializer)
                .bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
