package dev.usher.server;

import io.netty.channel.ServerChannelRecvByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HttpListenerTest {
    @Test
    void acceptsABurstPerLoopTurnInsteadOfOneConnection() {
        // Netty's epoll server channel ends its accept loop after one connection unless "maybe more data" is
        // ignored (it compares the new descriptor with 1); a burst of connects then drains one per loop turn.
        ServerChannelRecvByteBufAllocator allocator = HttpListener.acceptAllocator();
        assertThat(allocator.respectMaybeMoreData()).isFalse();
        assertThat(allocator.maxMessagesPerRead()).isEqualTo(HttpListener.ACCEPTS_PER_TURN);
    }
}
