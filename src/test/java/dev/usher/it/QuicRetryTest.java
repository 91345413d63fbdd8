package dev.usher.it;

import dev.usher.protocol.QuicRetryTokens;
import dev.usher.testing.Command;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link QuicRetryTokens} with real QUIC peers (Netty's quiche server codec and client): past the threshold a client
 * goes through Retry and is served, and Initial packets from an address that never answers (a one-way relay, as a
 * spoofed source) create no connection at all; below it they do.
 */
class QuicRetryTest {
    @TempDir
    Path dir;

    @Test
    void pastTheThresholdClientsProveTheirAddressAndSpoofedInitialsCreateNoConnection() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        AtomicInteger connections = new AtomicInteger();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = server(group, new QuicRetryTokens(() -> {
                asked.incrementAndGet();
                return 0;
            }, 0), connections);
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            try (H3Client client = H3Client.connect(port, "localhost")) {
                assertThat(client.quic.isActive()).isTrue();
            }
            assertThat(asked.get()).as("Initials without a token").isPositive();
            assertThat(connections.get()).isEqualTo(1);

            int before = asked.get();
            hangingHandshakesThroughOneWayRelay(port, 3);
            assertThat(asked.get()).as("the relayed Initials arrived").isGreaterThan(before);
            assertThat(connections.get()).as("no connection for an address that never answered the Retry")
                    .isEqualTo(1);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void belowTheThresholdConnectionsAreSetUpAtOnce() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Channel server = server(group, new QuicRetryTokens(() -> 0, 100), connections);
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            hangingHandshakesThroughOneWayRelay(port, 3);
            assertThat(connections.get()).isEqualTo(3);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private Channel server(EventLoopGroup group, QuicRetryTokens tokens, AtomicInteger connections)
            throws Exception {
        Path key = dir.resolve("key.pem");
        Path cert = dir.resolve("cert.pem");
        Command c = Command.run(30, List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"));
        assertThat(c.exitCode()).as(c.output()).isZero();
        QuicSslContext ssl = QuicSslContextBuilder.forServer(key.toFile(), null, cert.toFile())
                .applicationProtocols(Http3.supportedApplicationProtocols()).build();
        return new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(Http3.newQuicServerCodecBuilder()
                        .sslContext(ssl)
                        .tokenHandler(tokens)
                        .maxIdleTimeout(30, TimeUnit.SECONDS)
                        .initialMaxData(1 << 20)
                        .initialMaxStreamDataBidirectionalRemote(1 << 16)
                        .initialMaxStreamsBidirectional(10)
                        .handler(new ChannelInitializer<QuicChannel>() {
                            @Override
                            protected void initChannel(QuicChannel ch) {
                                connections.incrementAndGet();
                                ch.pipeline().addLast(new Http3ServerConnectionHandler(
                                        new ChannelInitializer<QuicStreamChannel>() {
                                            @Override
                                            protected void initChannel(QuicStreamChannel stream) {
                                                stream.pipeline().addLast(new ChannelInboundHandlerAdapter());
                                            }
                                        }));
                            }
                        })
                        .build())
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /** Starts {@code count} handshakes through a relay that forwards to the server and drops every answer. */
    private static void hangingHandshakesThroughOneWayRelay(int serverPort, int count) throws Exception {
        try (DatagramSocket relay = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            relay.setSoTimeout(200);
            InetSocketAddress serverAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort);
            Thread forwarder = Thread.ofVirtual().start(() -> {
                byte[] buffer = new byte[2048];
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < end) {
                    DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                    try {
                        relay.receive(packet);
                        if (packet.getPort() != serverPort) {
                            relay.send(new DatagramPacket(packet.getData(), packet.getLength(), serverAddress));
                        }
                    } catch (java.net.SocketTimeoutException idle) {
                        // look at the clock again
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });
            for (int i = 0; i < count; i++) {
                Thread.ofVirtual().start(() -> {
                    try (H3Client never = H3Client.connect(relay.getLocalPort(), "localhost")) {
                        throw new AssertionError("a handshake through the one-way relay completed");
                    } catch (Exception expected) {
                        // gives up after its timeout
                    }
                });
            }
            forwarder.join();
        }
    }
}
