package dev.usher.upstream;

import dev.usher.config.UpstreamAddress;
import dev.usher.net.Transport;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * One health check of a relayed backend (a stream's, or a passthrough site's): a TCP connection made within the
 * timeout means healthy, and is closed at once without a byte sent. Usher does not speak these backends' protocols,
 * so whether the service behind the port answers well is not judged.
 *
 * <p>Runs on one event loop; {@code done} is called exactly once, with null for healthy or a short reason, unless the
 * probe is cancelled.
 */
final class TcpProbe implements Probe {
    private final UpstreamPool pool;
    private final Duration timeout;
    private final EventLoop loop;
    private final Transport transport;
    private final Consumer<String> done;
    private Channel channel;
    private boolean finished;

    TcpProbe(UpstreamPool pool, Duration timeout, EventLoop loop, Transport transport, Consumer<String> done) {
        this.pool = pool;
        this.timeout = timeout;
        this.loop = loop;
        this.transport = transport;
        this.done = done;
    }

    @Override
    public void start() {
        UpstreamAddress address = pool.address();
        try {
            ChannelFuture connect = new Bootstrap()
                    .group(loop)
                    .channel(transport.socketChannel())
                    .resolver(pool.resolver())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                            Math.max(1, timeout.toMillis())))
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(InetSocketAddress.createUnresolved(address.host(), address.port()));
            channel = connect.channel();
            connect.addListener((ChannelFuture f) -> {
                f.channel().close();
                finish(f.isSuccess() ? null : HealthProbe.describe(f.cause()));
            });
        } catch (RejectedExecutionException e) {
            finish("event loop shut down");
        }
    }

    @Override
    public void cancel() {
        finished = true;
        if (channel != null) {
            channel.close();
        }
    }

    private void finish(String failure) {
        if (finished) {
            return;
        }
        finished = true;
        done.accept(failure);
    }
}
