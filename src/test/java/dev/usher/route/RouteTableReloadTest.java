package dev.usher.route;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.rules.RuleServices;
import dev.usher.net.Transport;
import dev.usher.upstream.UpstreamGroup;
import dev.usher.upstream.UpstreamPools;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A reload keeps the backend group (and so what it knows about backends) of every site whose backends stayed. */
class RouteTableReloadTest {
    private final UpstreamPools pools = new UpstreamPools(Transport.nio());
    private final RuleServices services = new RuleServices();

    @AfterEach
    void close() {
        services.close();
        pools.close();
    }

    private static UsherConfig config(String sites) throws Exception {
        return ConfigLoader.parse("listen: {https: off}\nsites:\n" + sites, "reload.yaml");
    }

    @Test
    void keepsTheGroupOfASiteWhoseBackendsAndBalancingStayed() throws Exception {
        RouteTable first = RouteTable.compile(config("""
                  a.example.com: [10.0.0.1:80, 10.0.0.2:80]
                  b.example.com: {to: [10.0.0.3:80, 10.0.0.4:80], policy: least_conn}
                  c.example.com: 10.0.0.5:80
                """), pools, services);
        RouteTable second = RouteTable.compile(config("""
                  a.example.com: {to: [10.0.0.1:80, 10.0.0.2:80], headers: {X-New: "1"}}
                  b.example.com: {to: [10.0.0.3:80, 10.0.0.4:80], policy: round_robin}
                  c.example.com: 10.0.0.6:80
                """), pools, services, first);
        UpstreamGroup kept = first.lookup("a.example.com").upstreams();
        assertThat(second.lookup("a.example.com").upstreams()).as("same backends, other header edits").isSameAs(kept);
        assertThat(second.lookup("b.example.com").upstreams()).as("other policy")
                .isNotSameAs(first.lookup("b.example.com").upstreams());
        assertThat(second.lookup("c.example.com").upstreams()).as("other backend")
                .isNotSameAs(first.lookup("c.example.com").upstreams());
        assertThat(second.lookup("a.example.com").rules()).as("the site's own rules are new")
                .isNotSameAs(first.lookup("a.example.com").rules());

        first.close();
        assertThat(kept.retain()).as("still in use by the new table after the old one closed").isTrue();
        kept.close(); // the retain above
        second.close();
        assertThat(kept.retain()).as("closed once no table uses it").isFalse();
    }
}
