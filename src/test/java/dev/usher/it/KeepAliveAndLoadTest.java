package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Backend connections are pooled and reused: never one per request, even under concurrent load. */
class KeepAliveAndLoadTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("sites:\n  127.0.0.1: 127.0.0.1:" + backend.port()
                + "\n  app.example.com: 127.0.0.1:" + backend.port() + "\n");
    }

    @Test
    void thousandSequentialRequestsReuseAHandfulOfBackendConnections() throws Exception {
        long acceptedBefore = backend.acceptedConnections();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(usher.uri("/seq")).build();
        for (int i = 0; i < 1000; i++) {
            assertThat(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        }
        assertThat(backend.acceptedConnections() - acceptedBefore).isLessThanOrEqualTo(3);
    }

    @Test
    void clientsThatCloseAfterEachRequestStillShareBackendConnections() throws Exception {
        // Nginx Proxy Manager's generated config opens a backend connection per request; Usher must not.
        long acceptedBefore = backend.acceptedConnections();
        for (int i = 0; i < 300; i++) {
            try (RawHttp http = new RawHttp(usher.port())) {
                RawHttp.Response r = http.send("GET /c" + i + " HTTP/1.1\r\nHost: app.example.com\r\nConnection: close\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
            }
        }
        assertThat(backend.acceptedConnections() - acceptedBefore).isLessThanOrEqualTo(4);
    }

    @Test
    void fiftyConcurrentClientsTwentyThousandRequestsAllSucceed() throws Exception {
        long acceptedBefore = backend.acceptedConnections();
        int clients = 50;
        int perClient = 400;
        AtomicInteger non2xx = new AtomicInteger();
        AtomicInteger ok = new AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(clients)) {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                    HttpRequest request = HttpRequest.newBuilder(usher.uri("/load")).build();
                    for (int i = 0; i < perClient; i++) {
                        HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() / 100 == 2 && r.body().contains("GET /load")) {
                            ok.incrementAndGet();
                        } else {
                            non2xx.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        assertThat(non2xx.get()).isZero();
        assertThat(ok.get()).isEqualTo(clients * perClient);
        assertThat(backend.acceptedConnections() - acceptedBefore).as("backend connections for 20,000 requests")
                .isLessThanOrEqualTo(2L * clients);
    }
}
