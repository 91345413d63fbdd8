package dev.usher.it;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.protocol.CompressBudget;
import dev.usher.protocol.HttpsProtocols;
import dev.usher.route.RouteTable;
import dev.usher.route.RouteTableHolder;
import dev.usher.rules.RuleServices;
import dev.usher.net.Transport;
import dev.usher.upstream.UpstreamPools;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.netty.util.concurrent.GlobalEventExecutor;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * An HTTPS listener on 127.0.0.1:0 with one fixed self-signed certificate, whose pipeline is {@code SslHandler} →
 * {@link HttpsProtocols}, over a route table compiled from YAML the way {@code dev.usher.Usher.start} does it: for
 * testing HTTP/2 behaviour on its own, without certificate management. The real listener (SNI → certificate,
 * ACME, local CA) is tested through {@code Usher} in {@code LocalCaHttpsTest} and {@code AcmeHttpsTest}.
 * BoringSSL when it loads, the JDK provider otherwise; ALPN offers h2 and http/1.1.
 */
final class TlsTestServer implements AutoCloseable {
    private final EventLoopGroup loops;
    private final UpstreamPools pools;
    private final RuleServices services;
    private final RouteTable table;
    private final Channel listener;
    /** Every accepted connection, for {@link #closeGracefully()}. */
    final ChannelGroup connections;

    private TlsTestServer(EventLoopGroup loops, UpstreamPools pools, RuleServices services, RouteTable table,
                          Channel listener, ChannelGroup connections) {
        this.loops = loops;
        this.pools = pools;
        this.services = services;
        this.table = table;
        this.listener = listener;
        this.connections = connections;
    }

    /** Starts with {@code yaml} (sites etc.; any listen: section is irrelevant here) on two event loops. */
    static TlsTestServer start(String yaml) throws Exception {
        UsherConfig config = ConfigLoader.parse(yaml, "test.yaml");
        Transport transport = Transport.best();
        EventLoopGroup loops = transport.newGroup(2, "tls-test");
        UpstreamPools pools = new UpstreamPools(transport);
        RuleServices services = new RuleServices();
        RouteTable table = RouteTable.compile(config, pools, services);
        RouteTableHolder routes = RouteTableHolder.of(table);
        CompressBudget compression = new CompressBudget();
        SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
        SslContext ssl = SslContextBuilder.forServer(cert.certificate(), cert.privateKey())
                .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                .build();
        ChannelGroup connections = new DefaultChannelGroup("tls-test", GlobalEventExecutor.INSTANCE);
        Channel listener = new ServerBootstrap()
                .group(loops)
                .channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast("tls", ssl.newHandler(ch.alloc()))
                                .addLast("alpn", new HttpsProtocols(routes, compression));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        return new TlsTestServer(loops, pools, services, table, listener, connections);
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Calls {@link HttpsProtocols#closeGracefully} on every open connection. */
    void closeGracefully() {
        connections.forEach(HttpsProtocols::closeGracefully);
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly();
        table.close();
        services.close();
        pools.close();
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
