package dev.usher.stream;

import dev.usher.config.ListenAddress;
import dev.usher.config.StreamSetting;
import dev.usher.observe.StreamEnding;
import dev.usher.observe.StreamObserver;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The child handler of one TCP stream's listener: each accepted connection gets the stream as the config in service
 * has it now (so a reload that keeps the port changes what new connections get, and never touches open ones), is
 * counted against its {@code max_connections}, and then routed by server name ({@link SniRouter}) or relayed at
 * once ({@link TcpRelay}). One per listener, shared by its connections; a reload that keeps the listener keeps this
 * object, and with it the count of open connections.
 */
@ChannelHandler.Sharable
public final class TcpStreamInitializer extends ChannelInitializer<Channel> {
    private final ListenAddress listen;
    private final Supplier<StreamTable> tables;
    private final StreamObserver observer;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param listen the stream's address as configured (its key in the tables)
     * @param tables the stream table of the generation in service, read once per connection
     */
    public TcpStreamInitializer(ListenAddress listen, Supplier<StreamTable> tables, StreamObserver observer) {
        this.listen = listen;
        this.tables = tables;
        this.observer = observer;
    }

    @Override
    protected void initChannel(Channel ch) {
        StreamTable.Compiled stream = tables.get().stream(listen, StreamSetting.Protocol.TCP);
        if (stream == null) {
            ch.close(); // accepted in the moment between a reload removing the stream and its listener closing
            return;
        }
        StreamSetting s = stream.setting();
        if (open.incrementAndGet() > s.maxConnections()) {
            open.decrementAndGet();
            TcpRelay.refuse(ch, s.name(), s.protocol().label(), null, s.accessLog(), observer,
                    StreamEnding.OVER_LIMIT);
            return;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ch.pipeline().addLast("relay", stream.routesByName() ? new SniRouter(stream, observer)
                : new TcpRelay(stream.plan(), null, observer));
    }

    /** Connections open on this listener now. */
    public int open() {
        return open.get();
    }
}
