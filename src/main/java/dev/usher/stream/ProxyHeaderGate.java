package dev.usher.stream;

import dev.usher.rules.Networks;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;

import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The first handler of a TCP listener behind load balancers that send PROXY protocol headers
 * ({@code listen: {proxy_protocol: [...]}}). A connection from one of those networks must start with a header: it is
 * read first ({@link ProxyHeaderReader}), its client address kept as the connection's
 * ({@link dev.usher.net.ClientAddress}), and only then is {@code next} (the listener's own initializer) set up.
 * A connection from anywhere else gets {@code next} at once, and a header it sends is not believed (it reaches the
 * protocol as bytes, which refuses it). Sharable.
 */
@ChannelHandler.Sharable
public final class ProxyHeaderGate extends ChannelInitializer<Channel> {
    private final Supplier<Networks> from;
    private final ChannelHandler next;

    /**
     * @param from the load balancers' networks as the config in service lists them, read per connection (empty:
     *             none, and then every connection gets {@code next} at once)
     * @param next a sharable initializer: the listener's own child handler
     */
    public ProxyHeaderGate(Supplier<Networks> from, ChannelHandler next) {
        this.from = from;
        this.next = next;
    }

    @Override
    protected void initChannel(Channel ch) {
        Networks trusted = from.get();
        if (!trusted.isEmpty() && ch.remoteAddress() instanceof InetSocketAddress peer
                && trusted.contains(peer.getAddress())) {
            ProxyHeaderReader.install(ch.pipeline(), next);
        } else {
            ch.pipeline().addLast(next);
        }
    }
}
