package dev.usher.whoami;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.net.Transport;
import io.netty.channel.EventLoopGroup;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class WhoamiHttpTest {
    private Whoami whoami;
    private HttpClient client;

    @BeforeEach
    void start() {
        whoami = Whoami.start("127.0.0.1", 0, "web-1");
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() {
        client.close();
        whoami.close();
    }

    private URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + whoami.port() + pathAndQuery);
    }

    private HttpResponse<String> get(String pathAndQuery) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(pathAndQuery)).header("X-Test", "one").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void answersWithNameRemoteAddressRequestLineAndHeadersInOrder() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/path?x=1"))
                .header("X-First", "a").header("X-Second", "b").build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; charset=utf-8");
        assertThat(response.headers().firstValue("x-whoami")).hasValue("web-1");
        String body = response.body();
        assertThat(body).startsWith("Hostname: web-1\nIP: ").endsWith("\n");
        assertThat(body).containsPattern("\nRemoteAddr: 127\\.0\\.0\\.1:\\d+\n");
        assertThat(body).contains("\nGET /path?x=1 HTTP/1.1\n");
        assertThat(body).contains("\nHost: 127.0.0.1:" + whoami.port() + "\n");
        assertThat(body.indexOf("X-First: a\n")).isPositive().isLessThan(body.indexOf("X-Second: b\n"));
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(body.length());
    }

    @Test
    void reusesOneConnectionForSequentialRequests() throws Exception {
        for (int i = 0; i < 100; i++) {
            assertThat(get("/n/" + i).statusCode()).isEqualTo(200);
        }

        assertThat(whoami.acceptedConnections()).isEqualTo(1);
        assertThat(whoami.requestsSeen()).isEqualTo(100);
    }

    @Test
    void waitsBeforeAnswering() throws Exception {
        long start = System.nanoTime();
        HttpResponse<String> response = get("/slow?wait=300ms");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(tookMillis).isGreaterThanOrEqualTo(300);
    }

    @Test
    void rejectsAnUnreadableWait() throws Exception {
        HttpResponse<String> response = get("/?wait=soon");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("not a duration");
    }

    @Test
    void answersWithTheRequestedStatus() throws Exception {
        HttpResponse<String> response = get("/status/503");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("503 Service Unavailable\n");
        assertThat(response.headers().firstValue("x-whoami")).hasValue("web-1");
    }

    @Test
    void answersHealth() throws Exception {
        HttpResponse<String> response = get("/health");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok\n");
    }

    @Test
    void statusWithoutBodyKeepsTheConnection() throws Exception {
        assertThat(get("/status/204").statusCode()).isEqualTo(204);
        assertThat(get("/status/304").statusCode()).isEqualTo(304);
        assertThat(get("/status/404").statusCode()).isEqualTo(404);

        assertThat(whoami.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void streamsDataOfTheDocumentedPattern() throws Exception {
        long size = 50L << 20;
        HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(uri("/data?size=50MiB")).build(),
                HttpResponse.BodyHandlers.ofInputStream());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(size);
        RawHttp.DigestSink sink = new RawHttp.DigestSink();
        long read;
        try (InputStream body = response.body()) {
            read = body.transferTo(sink);
        }
        assertThat(read).isEqualTo(size);
        assertThat(sink.hex()).isEqualTo(Sha256.ofPattern(size));
    }

    @Test
    void streamsSmallAndOddDataSizes() throws Exception {
        for (String size : new String[] {"0", "1", "1000", "1KB", "70000", "1KiB"}) {
            HttpResponse<byte[]> response = client.send(
                    HttpRequest.newBuilder(uri("/data?size=" + size)).build(), HttpResponse.BodyHandlers.ofByteArray());
            long expected = Quantities.parseSize(size);
            assertThat(response.body()).hasSize((int) expected);
            assertThat(Sha256.hex(Sha256.newDigest().digest(response.body()))).isEqualTo(Sha256.ofPattern(expected));
        }
        assertThat(whoami.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void rejectsDataWithoutSize() throws Exception {
        assertThat(get("/data").statusCode()).isEqualTo(400);
        assertThat(get("/data?size=12parsecs").statusCode()).isEqualTo(400);
    }

    @Test
    void echoesASmallBodyWithItsContentType() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/echo"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"hello\":1}")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"hello\":1}");
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(11);
    }

    @Test
    void headGetsHeadersWithoutBody() throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri("/data?size=1MiB"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValueAsLong("content-length")).hasValue(1L << 20);
        assertThat(response.body()).isEmpty();
        assertThat(get("/health").body()).isEqualTo("ok\n"); // the connection is still in step
        assertThat(whoami.acceptedConnections()).isEqualTo(1);
    }

    @Test
    void reportsAClearErrorWhenThePortIsTaken() {
        assertThatThrownBy(() -> Whoami.start("127.0.0.1", whoami.port(), "other"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("whoami cannot listen on 127.0.0.1:" + whoami.port());
    }

    @Test
    void usesTheMachineNameWhenNoneIsGiven() throws Exception {
        try (Whoami unnamed = Whoami.start("127.0.0.1", 0, null)) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + unnamed.port() + "/")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.headers().firstValue("x-whoami")).isPresent().get().asString().isNotBlank();
        }
    }

    @Test
    void leavesASharedGroupRunningOnClose() throws Exception {
        EventLoopGroup group = Transport.best().newGroup(1, "whoami-test");
        try {
            Whoami shared = Whoami.start("127.0.0.1", 0, "shared", group);
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + shared.port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.headers().firstValue("x-whoami")).hasValue("shared");
            shared.close();

            assertThat(group.isShuttingDown()).isFalse();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void worksOnASharedNioGroup() throws Exception {
        EventLoopGroup group = Transport.nio().newGroup(1, "whoami-nio-test");
        try (Whoami shared = Whoami.start("127.0.0.1", 0, "nio", group)) {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + shared.port() + "/health")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.body()).isEqualTo("ok\n");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
