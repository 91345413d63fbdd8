package dev.usher.route;

import dev.usher.bench.BenchConfigs;
import dev.usher.rules.RuleServices;
import dev.usher.net.Transport;
import dev.usher.upstream.UpstreamPools;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * {@link RouteTable#lookup} on a table of {@code sites} exact names plus one wildcard site, for the Host values a
 * request brings: an exact name, a name under the wildcard, an unknown name, and an exact name in mixed case with
 * a port. The Host string is a fresh copy for each call (as the decoder makes one per request), so its hash is
 * computed each time, as in Usher; the copy is measured on its own by {@link #hostCopyOnly} (subtract it).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RouteLookupBenchmark {
    @Param({"1", "20", "200"})
    int sites;

    @Param({"exact", "wildcard", "miss", "portMixedCase"})
    String host;

    private UpstreamPools pools;
    private RuleServices services;
    private RouteTable table;
    private byte[] hostBytes;

    @Setup
    public void setUp() {
        pools = new UpstreamPools(Transport.nio());
        services = new RuleServices();
        table = RouteTable.compile(BenchConfigs.sites(sites, null), pools, services);
        String value = switch (host) {
            case "exact" -> "app0.example.com";
            case "wildcard" -> "web.dev.example.com";
            case "miss" -> "nothing.example.org";
            case "portMixedCase" -> "App0.Example.COM:8080";
            default -> throw new IllegalArgumentException(host);
        };
        hostBytes = value.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        Route found = table.lookup(value);
        if ((found == null) != host.equals("miss")) {
            throw new IllegalStateException("lookup of " + value + " gave " + found);
        }
    }

    @TearDown
    public void tearDown() {
        table.close();
        services.close();
        pools.close();
    }

    private String freshHost() {
        return new String(hostBytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Benchmark
    public Route lookup() {
        return table.lookup(freshHost());
    }

    @Benchmark
    public String hostCopyOnly() {
        return freshHost();
    }
}
