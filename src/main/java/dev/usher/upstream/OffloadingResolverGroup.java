package dev.usher.upstream;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.InetNameResolver;
import io.netty.resolver.InetSocketAddressResolver;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Promise;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Resolves backend names (docker-compose service names, DNS names) off the event loop. Netty's default resolver calls
 * {@link InetAddress#getByName} on the event loop, where one slow DNS answer would stall every connection of that
 * loop. The JDK caches answers (30 s by default), so most look-ups return at once. IP literals never leave the loop.
 */
final class OffloadingResolverGroup extends AddressResolverGroup<InetSocketAddress> {
    private final ExecutorService lookups = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("usher-dns-", 0).factory());

    @Override
    protected AddressResolver<InetSocketAddress> newResolver(EventExecutor executor) {
        return new InetSocketAddressResolver(executor, new InetNameResolver(executor) {
            @Override
            protected void doResolve(String host, Promise<InetAddress> promise) {
                byte[] literal = NetUtil.createByteArrayFromIpAddressString(host);
                if (literal != null) {
                    try {
                        promise.setSuccess(InetAddress.getByAddress(host, literal));
                    } catch (Exception e) {
                        promise.setFailure(e);
                    }
                    return;
                }
                lookups.execute(() -> {
                    try {
                        promise.trySuccess(InetAddress.getByName(host));
                    } catch (Exception e) {
                        promise.tryFailure(e);
                    }
                });
            }

            @Override
            protected void doResolveAll(String host, Promise<List<InetAddress>> promise) {
                lookups.execute(() -> {
                    try {
                        promise.trySuccess(Arrays.asList(InetAddress.getAllByName(host)));
                    } catch (Exception e) {
                        promise.tryFailure(e);
                    }
                });
            }
        });
    }

    @Override
    public void close() {
        super.close();
        lookups.shutdownNow();
    }
}
