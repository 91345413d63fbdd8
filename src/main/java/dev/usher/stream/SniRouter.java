package dev.usher.stream;

import dev.usher.observe.StreamEnding;
import dev.usher.observe.StreamObserver;
import dev.usher.tls.ServerNames;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslClientHelloHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * The first handler of a stream that routes by TLS server name ({@code sni:}): gathers the ClientHello (Netty's
 * {@link SslClientHelloHandler}, across reads and records), picks the plan for its name (a listed one, else the
 * stream's {@code to:}), and replaces itself with a {@link TcpRelay}, which receives the gathered bytes as the
 * first it relays. A name with no plan, bytes that are no ClientHello, or no hello within {@value #HELLO_SECONDS}
 * seconds closes the connection. One per connection; its event loop only.
 */
final class SniRouter extends SslClientHelloHandler<String> {
    static final long HELLO_SECONDS = 10;

    private final StreamTable.Compiled stream;
    private final StreamObserver observer;
    private ScheduledFuture<?> timer;
    private boolean routed;

    SniRouter(StreamTable.Compiled stream, StreamObserver observer) {
        this.stream = stream;
        this.observer = observer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> refuse(ctx, null), HELLO_SECONDS, TimeUnit.SECONDS);
        if (ctx.channel().isActive()) {
            ctx.read();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    protected Future<String> lookup(ChannelHandlerContext ctx, ByteBuf clientHello) {
        return ctx.executor().newSucceededFuture(ServerNames.of(clientHello));
    }

    @Override
    protected void onLookupComplete(ChannelHandlerContext ctx, Future<String> future) {
        timer.cancel(false);
        String name = future.getNow();
        RelayPlan plan = stream.planFor(name);
        if (plan == null) {
            refuse(ctx, name);
            return;
        }
        routed = true;
        ctx.pipeline().replace(this, "relay", new TcpRelay(plan, name, observer));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        refuse(ctx, null);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        if (timer != null) {
            timer.cancel(false);
        }
        super.handlerRemoved0(ctx);
    }

    /** No plan for the name (or no readable hello): logged and counted as a connection with no backend. */
    private void refuse(ChannelHandlerContext ctx, String name) {
        if (routed || !ctx.channel().isOpen()) {
            return;
        }
        routed = true;
        TcpRelay.refuse(ctx.channel(), stream.setting().name(), stream.setting().protocol().label(), name,
                stream.setting().accessLog(), observer, StreamEnding.NO_UPSTREAM);
    }
}
