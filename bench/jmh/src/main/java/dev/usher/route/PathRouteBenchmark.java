package dev.usher.route;

import dev.usher.bench.BenchConfigs;
import dev.usher.net.Transport;
import dev.usher.rules.RuleServices;
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
 * The path step of a request to a site with {@code paths:} (what {@code RequestDispatch.pathRoute} does after the
 * host lookup): normal form, match form, the longest matching entry, the target rewritten. Five entries; a path
 * already in normal form that no strip rewrites should allocate nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PathRouteBenchmark {
    @Param({"prefix", "stripped", "none", "dotSegments"})
    String uri;

    private UpstreamPools pools;
    private RuleServices services;
    private RouteTable table;
    private Route site;
    private String target;

    @Setup
    public void setUp() {
        pools = new UpstreamPools(Transport.nio());
        services = new RuleServices();
        table = RouteTable.compile(BenchConfigs.sites(20, """
                paths:
                  /api/: 127.0.0.1:30001
                  /api/v2/: {to: 127.0.0.1:30002, strip_prefix: true}
                  /healthz: {respond: ok}
                  /static*: 127.0.0.1:30003
                  /admin/: {allow: [10.0.0.0/8]}
                """), pools, services);
        site = table.lookup("app0.example.com");
        target = switch (uri) {
            case "prefix" -> "/api/users?id=7";
            case "stripped" -> "/api/v2/users?id=7";
            case "none" -> "/dashboard/projects?tab=recent";
            case "dotSegments" -> "/app/../api/users";
            default -> throw new IllegalArgumentException(uri);
        };
        if (site.paths() == null) {
            throw new IllegalStateException("the site has no paths");
        }
    }

    @TearDown
    public void tearDown() {
        table.close();
        services.close();
        pools.close();
    }

    @Benchmark
    public String pathRoute() {
        String normal = RequestPaths.normalize(target);
        String matched = RequestPaths.matchForm(normal);
        PathRoute hit = site.paths().find(matched);
        return hit == null ? normal : hit.rewrite(normal, matched);
    }
}
