package dev.usher.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.json.JsonReader;
import dev.usher.net.Backoff;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Reading the Engine API's answers: the shapes Docker documents (its API reference's examples, which this machine
 * cannot run) beside podman's (which ContainerLabelsTest talks to for real), the version negotiation, the events
 * that ask for a re-list, and the HTTP/1.1 framing of the answers.
 */
class EngineAnswersTest {
    @Test
    void theVersionIsTheDaemonsCappedAtTheNewestKnownButNeverUnderItsMinimum() throws Exception {
        assertThat(ApiVersion.negotiate(Map.of("ApiVersion", "1.41", "MinAPIVersion", "1.24")))
                .hasToString("1.41"); // podman 4.3
        assertThat(ApiVersion.negotiate(Map.of("ApiVersion", "1.52", "MinAPIVersion", "1.44")))
                .hasToString("1.51"); // Docker 29: not 1.24
        assertThat(ApiVersion.negotiate(Map.of("ApiVersion", "1.60", "MinAPIVersion", "1.55")))
                .hasToString("1.55");
        assertThat(ApiVersion.parse("1.41").prefix()).isEqualTo("/v1.41");
        assertThatThrownBy(() -> ApiVersion.negotiate(Map.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void listsRunningContainersWithRouteLabelsInDockersAndPodmansShapes() throws Exception {
        String docker = """
                [{"Id": "8dfafdbc3a40", "Names": ["/web-1"], "State": "running", "Status": "Up 2 hours (healthy)",
                  "Labels": {"usher.host": "a.example.com", "com.docker.compose.project": "x"},
                  "Ports": [{"PrivatePort": 80, "Type": "tcp"}],
                  "NetworkSettings": {"Networks": {"web": {"NetworkID": "7ea29fc1412292a2d7bba362f9253545fecdfa8ce9a6e37dd10ba8bee7129812",
                    "IPAddress": "172.18.0.3", "GlobalIPv6Address": ""}}}},
                 {"Id": "9cd87474be90", "Names": ["/db"], "State": "running", "Labels": {},
                  "NetworkSettings": {"Networks": {"web": {"IPAddress": "172.18.0.4"}}}},
                 {"Id": "3176a2479c92", "Names": ["/stopped"], "State": "exited", "Labels": {"usher.host": "s.example.com"}},
                 {"Id": "4cb07b47f9fb", "Names": ["/starting"], "State": "running", "Status": "Up 3 seconds (health: starting)",
                  "Labels": {"traefik.enable": "true"}, "NetworkSettings": {"Networks": {"v6only": {"IPAddress": "",
                    "GlobalIPv6Address": "fd00::5"}}}}]
                """;
        List<ContainerList.Listed> listed = ContainerList.parse(JsonReader.parse(docker));
        assertThat(listed).extracting(ContainerList.Listed::name, ContainerList.Listed::ready)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("web-1", true),
                        org.assertj.core.groups.Tuple.tuple("starting", false));
        assertThat(listed.get(0).networks()).containsExactly(Map.entry("web", "172.18.0.3"));
        assertThat(listed.get(1).networks()).containsExactly(Map.entry("v6only", "fd00::5"));

        String podman = """
                [{"Id": "5abe62b99972", "Names": ["/web1"], "State": "running", "Status": "Up 4 seconds",
                  "Labels": {"usher.host": "a.example.com"}, "Ports": [],
                  "NetworkSettings": {"Networks": {"podman": {"NetworkID": "podman", "IPAddress": "10.88.0.2"}}}}]
                """;
        assertThat(ContainerList.parse(JsonReader.parse(podman)).get(0).networks())
                .containsExactly(Map.entry("podman", "10.88.0.2"));
    }

    @Test
    void exposedPortsComeFromTheInspection() throws Exception {
        assertThat(ContainerList.exposedPorts(JsonReader.parse(
                "{\"Config\": {\"ExposedPorts\": {\"8080/tcp\": {}, \"53/udp\": {}, \"80/tcp\": {}}}}")))
                .containsExactly(80, 8080);
        assertThat(ContainerList.exposedPorts(JsonReader.parse("{\"Config\": {\"ExposedPorts\": null}}"))).isEmpty();
    }

    @Test
    void containerAndNetworkChangesAskForAReListAndExecEventsDoNot() throws Exception {
        assertThat(DockerEvents.matters(JsonReader.parse("{\"Type\":\"container\",\"Action\":\"start\"}"))).isTrue();
        assertThat(DockerEvents.matters(JsonReader.parse(
                "{\"Type\":\"container\",\"Action\":\"health_status: healthy\"}"))).isTrue();
        assertThat(DockerEvents.matters(JsonReader.parse("{\"Type\":\"network\",\"Action\":\"connect\"}"))).isTrue();
        assertThat(DockerEvents.matters(JsonReader.parse("{\"status\":\"die\",\"Type\":\"container\"}"))).isTrue();
        assertThat(DockerEvents.matters(JsonReader.parse(
                "{\"Type\":\"container\",\"Action\":\"exec_start: sh -c true\"}"))).isFalse();
        assertThat(DockerEvents.matters(JsonReader.parse("{\"Type\":\"image\",\"Action\":\"pull\"}"))).isFalse();
        assertThat(DockerEvents.FILTER).doesNotContain("scope");
    }

    @Test
    void readsChunkedAndSizedBodiesAndRefusesBrokenFraming() throws Exception {
        InputStream chunked = stream("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\n{\"a\":\r\n3;ext=1\r\n1}\n\r\n0\r\nTrailer: x\r\n\r\n");
        HttpResponseReader.Head head = HttpResponseReader.head(chunked);
        assertThat(head.status()).isEqualTo(200);
        assertThat(new String(HttpResponseReader.readAll(HttpResponseReader.body(head, chunked), 100),
                StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}\n");

        InputStream sized = stream("HTTP/1.1 404 Not Found\nContent-Length: 4\n\nnope and more");
        HttpResponseReader.Head notFound = HttpResponseReader.head(sized);
        assertThat(new String(HttpResponseReader.readAll(HttpResponseReader.body(notFound, sized), 100),
                StandardCharsets.UTF_8)).isEqualTo("nope");

        InputStream cut = stream("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort");
        HttpResponseReader.Head cutHead = HttpResponseReader.head(cut);
        assertThatThrownBy(() -> HttpResponseReader.readAll(HttpResponseReader.body(cutHead, cut), 100))
                .isInstanceOf(IOException.class).hasMessageContaining("5 bytes before the end");
        assertThatThrownBy(() -> HttpResponseReader.head(stream("SSH-2.0-OpenSSH\r\n\r\n")))
                .isInstanceOf(IOException.class).hasMessageContaining("not an HTTP/1.1 response");
        InputStream big = stream("HTTP/1.1 200 OK\r\n\r\n" + "x".repeat(200));
        HttpResponseReader.Head bigHead = HttpResponseReader.head(big);
        assertThatThrownBy(() -> HttpResponseReader.readAll(HttpResponseReader.body(bigHead, big), 100))
                .isInstanceOf(IOException.class).hasMessageContaining("over 100 bytes");
    }

    @Test
    void backoffDoublesToItsMostAndStartsOverAfterASuccess() {
        Backoff backoff = new Backoff(java.time.Duration.ofMillis(100), java.time.Duration.ofMillis(400));
        assertThat(backoff.next().toMillis()).isBetween(100L, 120L);
        assertThat(backoff.next().toMillis()).isBetween(200L, 240L);
        assertThat(backoff.next().toMillis()).isBetween(400L, 480L);
        assertThat(backoff.next().toMillis()).isBetween(400L, 480L);
        backoff.reset();
        assertThat(backoff.next().toMillis()).isBetween(100L, 120L);
    }

    private static InputStream stream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1));
    }
}
