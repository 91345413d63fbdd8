package dev.usher.server;

import dev.usher.config.ListenAddress;
import dev.usher.net.Transport;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HttpListenerTest {
    @Test
    void acceptsABurstPerLoopTurnInsteadOfOneConnection() {
        // Netty's epoll server channel ends its accept loop after one connection unless "maybe more data" is
        // ignored (it compares the new descriptor with 1); a burst of connects then drains one per loop turn.
        ServerChannelRecvByteBufAllocator allocator = HttpListener.acceptAllocator();
        assertThat(allocator.respectMaybeMoreData()).isFalse();
        assertThat(allocator.maxMessagesPerRead()).isEqualTo(HttpListener.ACCEPTS_PER_TURN);
    }

    @Test
    void aBoundListenerTakesTheConnectionsTheKernelQueuedOnlyOnceItStartsAccepting() throws Exception {
        Transport transport = Transport.best();
        EventLoopGroup loops = transport.newGroup(1, "listener-test");
        HttpListener listener = HttpListener.bind(new ListenAddress("127.0.0.1", 0), transport, loops,
                new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.writeAndFlush(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII));
                    }
                });
        try (Socket early = new Socket("127.0.0.1", listener.address().getPort())) {
            // The kernel completed the handshake (the backlog), but nobody accepted it: nothing is written.
            early.setSoTimeout(300);
            InputStream in = early.getInputStream();
            assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
            listener.startAccepting();
            early.setSoTimeout(10_000);
            assertThat(new String(in.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
        } finally {
            listener.close();
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}
