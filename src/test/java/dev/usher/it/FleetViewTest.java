package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.json.JsonReader;
import dev.usher.testing.Pebble;
import dev.usher.testing.RedisServer;
import dev.usher.testing.Servers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /api/fleet} on a real admin endpoint, and the admin UI's Fleet page in Chromium: the nodes sharing a
 * real Redis, from their heartbeats, with the node whose sites differ flagged as config drift; a node without
 * {@code storage:} says it runs alone.
 */
class FleetViewTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    Path work;

    private String config(RedisServer redis, String node, int admin, String... sites) {
        StringBuilder yaml = new StringBuilder("""
                listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                http3: false
                admin: "127.0.0.1:%d"
                data: %s
                storage: {redis: "%s", encryption_key_file: "%s", node: %s}
                sites:
                """.formatted(Pebble.freePort(), Pebble.freePort(), admin, work.resolve("data-" + node), redis.uri(),
                work.resolve("storage.key"), node));
        for (String site : sites) {
            yaml.append("  http://").append(site).append(": 127.0.0.1:9\n");
        }
        return yaml.toString();
    }

    private static Map<String, Object> fleet(int admin) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + admin + "/api/fleet")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) JsonReader.parse(response.body());
        return body;
    }

    @Test
    void listsTheNodesAndFlagsTheOneWhoseSitesDiffer() throws Exception {
        Files.writeString(work.resolve("storage.key"), HexFormat.of().formatHex(new byte[32]).replace('0', '7'));
        try (RedisServer redis = RedisServer.start(work.resolve("redis"))) {
            int adminA = Pebble.freePort();
            servers.track(Usher.start(ConfigLoader.parse(config(redis, "a", adminA, "one.test", "two.test"), "a.yaml"),
                    1));
            servers.track(Usher.start(ConfigLoader.parse(config(redis, "b", Pebble.freePort(), "one.test",
                    "two.test"), "b.yaml"), 1));
            servers.track(Usher.start(ConfigLoader.parse(config(redis, "c", Pebble.freePort(), "one.test",
                    "two.test", "three.test"), "c.yaml"), 1));
            Map<String, Object> view = fleet(adminA);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (((List<?>) view.get("nodes")).size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(100);
                view = fleet(adminA);
            }
            assertThat(view.get("storage")).isEqualTo("Redis at 127.0.0.1:" + redis.port());
            assertThat(view.get("node")).isEqualTo("a");
            assertThat(view.get("reachable")).isEqualTo(true);
            assertThat(view.get("drift")).isEqualTo(true);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> nodes = (List<Map<String, Object>>) view.get("nodes");
            assertThat(nodes).extracting(n -> n.get("name")).containsExactly("a", "b", "c");
            assertThat(nodes).extracting(n -> n.get("self")).containsExactly(true, false, false);
            assertThat(nodes).extracting(n -> n.get("drift")).containsExactly(false, false, true);
            assertThat(nodes.get(0).get("config_hash")).isEqualTo(nodes.get(1).get("config_hash"))
                    .isNotEqualTo(nodes.get(2).get("config_hash"));
            assertThat(nodes).allSatisfy(n -> assertThat(n.get("last_reload")).isNotNull());

            // the same in the admin UI's Fleet page, in Chromium
            AdminUiBrowserTest.runScenario("fleet", "http://127.0.0.1:" + adminA, work.resolve("a.yaml"), Map.of());
        }
    }

    @Test
    void aNodeWithoutStorageRunsAlone() throws Exception {
        int admin = Pebble.freePort();
        servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0"}
                admin: "127.0.0.1:%d"
                data: %s
                sites:
                  http://alone.test: 127.0.0.1:9
                """.formatted(admin, work.resolve("alone")), "alone.yaml"), 1));
        Map<String, Object> view = fleet(admin);
        assertThat(view.get("storage")).isNull();
        assertThat((List<?>) view.get("nodes")).isEmpty();
    }
}
