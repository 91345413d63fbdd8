package dev.usher.upstream;

import dev.usher.config.Balancing;
import dev.usher.config.UpstreamAddress;
import dev.usher.net.Transport;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Pools that never connect, for tests of picking and health bookkeeping. */
final class TestPools {
    private TestPools() {
    }

    /** {@code n} pools for 10.0.0.1:8080 … 10.0.0.n:8080. */
    static List<UpstreamPool> pools(int n) {
        List<UpstreamPool> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(pool("10.0.0." + i, 8080));
        }
        return out;
    }

    static UpstreamPool pool(String host, int port) {
        return new UpstreamPool(new UpstreamAddress(host, port), Transport.nio(), null, 1, Duration.ofSeconds(1),
                new BackendTls());
    }

    static Balancing balancing(Balancing.Policy policy, int maxFails, Duration failTimeout) {
        return new Balancing(policy, maxFails, failTimeout, null);
    }

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** A deterministic spread of IPv4 client addresses. */
    static InetAddress client(int i) {
        int x = i * 0x9E3779B1;
        try {
            return InetAddress.getByAddress(new byte[]{(byte) (x >>> 24), (byte) (x >>> 16), (byte) (x >>> 8),
                    (byte) x});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
