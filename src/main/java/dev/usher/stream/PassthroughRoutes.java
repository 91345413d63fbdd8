package dev.usher.stream;

import dev.usher.observe.StreamObserver;
import dev.usher.tls.Passthrough;
import io.netty.channel.ChannelHandler;

import java.util.function.Supplier;

/**
 * The passthrough sites of the generation in service, for the HTTPS listener's TLS router: a server name one of them
 * has gets a {@link TcpRelay} to its backends; any other goes on to be terminated.
 */
public final class PassthroughRoutes implements Passthrough {
    private final Supplier<StreamTable> tables;
    private final StreamObserver observer;

    public PassthroughRoutes(Supplier<StreamTable> tables, StreamObserver observer) {
        this.tables = tables;
        this.observer = observer;
    }

    @Override
    public ChannelHandler relayFor(String serverName) {
        StreamTable table = tables.get();
        RelayPlan plan = table == null ? null : table.passthrough(serverName);
        return plan == null ? null : new TcpRelay(plan, serverName, observer);
    }
}
