package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The five-site config of the README: every name reaches its own backend. */
class FiveSitesTest {

    @Test
    void eachOfFiveNamesReachesItsOwnBackend() throws Exception {
        List<String> names = List.of("app1.example.com", "app2.example.com", "app3.example.com", "app4.example.com",
                "ws.example.com");
        List<Whoami> backends = new ArrayList<>();
        StringBuilder yaml = new StringBuilder("sites:\n");
        try {
            for (String name : names) {
                Whoami w = Whoami.start("127.0.0.1", 0, "backend-of-" + name);
                backends.add(w);
                yaml.append("  ").append(name).append(": 127.0.0.1:").append(w.port()).append('\n');
            }
            assertThat(yaml.toString().lines().count()).isEqualTo(6); // fewer than Caddy's 15 for five sites
            try (RunningUsher usher = RunningUsher.start(yaml.toString())) {
                for (String name : names) {
                    try (RawHttp http = new RawHttp(usher.port())) {
                        RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: " + name + "\r\n\r\n").read();
                        assertThat(r.status()).isEqualTo(200);
                        assertThat(r.header("x-whoami")).isEqualTo("backend-of-" + name);
                    }
                }
            }
        } finally {
            backends.forEach(Whoami::close);
        }
    }

    @Test
    void anUpstreamNameThatDoesNotResolveGives502() throws Exception {
        try (RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: no-such-host.invalid:80\n");
             RawHttp http = new RawHttp(usher.port())) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n").read().status()).isEqualTo(502);
        }
    }
}
