package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Sites with several backends: policies, failover, health, and no client-visible errors when one dies. */
class BalancingTest {

    static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String whoami(RunningUsher usher, String host, String path) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
            return r.status() + " " + r.header("x-whoami");
        }
    }

    @Test
    void roundRobinTakesBackendsInTurn() throws Exception {
        try (Whoami a = Whoami.start("127.0.0.1", 0, "a"); Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  rr.example.com: [127.0.0.1:" + a.port()
                     + ", 127.0.0.1:" + b.port() + "]\n")) {
            Map<String, Integer> counts = new HashMap<>();
            for (int i = 0; i < 20; i++) {
                counts.merge(whoami(usher, "rr.example.com", "/"), 1, Integer::sum);
            }
            assertThat(counts).containsEntry("200 a", 10).containsEntry("200 b", 10);
        }
    }

    @Test
    void firstPolicyFailsOverAndNeverUsesTheSecondWhileTheFirstIsUp() throws Exception {
        Whoami a = Whoami.start("127.0.0.1", 0, "a");
        try (Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  f.example.com: {to: [127.0.0.1:" + a.port()
                     + ", 127.0.0.1:" + b.port() + "], policy: first}\n")) {
            for (int i = 0; i < 10; i++) {
                assertThat(whoami(usher, "f.example.com", "/")).isEqualTo("200 a");
            }
            assertThat(b.requestsSeen()).isZero();
            a.close();
            for (int i = 0; i < 10; i++) {
                assertThat(whoami(usher, "f.example.com", "/")).isEqualTo("200 b");
            }
        } finally {
            a.close();
        }
    }

    @Test
    void aDeadBackendIsSkippedWithoutErrors() throws Exception {
        try (Whoami a = Whoami.start("127.0.0.1", 0, "a");
             RunningUsher usher = RunningUsher.start("sites:\n  d.example.com: {to: [127.0.0.1:" + closedPort()
                     + ", 127.0.0.1:" + a.port() + "], health: {max_fails: 1, fail_timeout: 1m}}\n")) {
            for (int i = 0; i < 20; i++) {
                assertThat(whoami(usher, "d.example.com", "/")).isEqualTo("200 a");
            }
        }
    }

    @Test
    void allBackendsDownGivesAClearError() throws Exception {
        try (RunningUsher usher = RunningUsher.start("sites:\n  x.example.com: [127.0.0.1:" + closedPort()
                + ", 127.0.0.1:" + closedPort() + "]\n")) {
            String first = whoami(usher, "x.example.com", "/");
            assertThat(first).startsWith("50");
            for (int i = 0; i < 5; i++) {
                assertThat(whoami(usher, "x.example.com", "/")).matches("50[23] null");
            }
        }
    }

    @Test
    void ipHashSendsOneClientToOneBackend() throws Exception {
        try (Whoami a = Whoami.start("127.0.0.1", 0, "a"); Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  h.example.com: {to: [127.0.0.1:" + a.port()
                     + ", 127.0.0.1:" + b.port() + "], policy: ip_hash}\n")) {
            String first = whoami(usher, "h.example.com", "/");
            for (int i = 0; i < 10; i++) {
                assertThat(whoami(usher, "h.example.com", "/")).isEqualTo(first);
            }
        }
    }

    @Test
    void leastConnAvoidsTheBusyBackend() throws Exception {
        try (Whoami a = Whoami.start("127.0.0.1", 0, "a"); Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  l.example.com: {to: [127.0.0.1:" + a.port()
                     + ", 127.0.0.1:" + b.port() + "], policy: least_conn}\n")) {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                // One slow request keeps one backend busy; every quick request meanwhile must go to the other.
                Future<String> slow = pool.submit(() -> whoami(usher, "l.example.com", "/?wait=1500ms"));
                Thread.sleep(200);
                List<String> quick = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    quick.add(whoami(usher, "l.example.com", "/"));
                }
                String busy = slow.get();
                assertThat(busy).startsWith("200 ");
                String other = busy.endsWith(" a") ? "200 b" : "200 a";
                assertThat(quick).containsOnly(other);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void activeHealthChecksTakeADeadBackendOutAndBringItBack() throws Exception {
        Whoami a = Whoami.start("127.0.0.1", 0, "a");
        int aPort = a.port();
        try (Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  ah.example.com: {to: [127.0.0.1:" + aPort
                     + ", 127.0.0.1:" + b.port() + "], health: {path: /health, interval: 1s, timeout: 500ms}}\n")) {
            a.close();
            Thread.sleep(2500); // two check intervals
            long before = b.requestsSeen();
            for (int i = 0; i < 10; i++) {
                assertThat(whoami(usher, "ah.example.com", "/")).isEqualTo("200 b");
            }
            // b also answers its own health checks (one a second) meanwhile, so at least the ten.
            assertThat(b.requestsSeen() - before).isGreaterThanOrEqualTo(10);
            try (Whoami back = Whoami.start("127.0.0.1", aPort, "a-again")) {
                long deadline = System.nanoTime() + 10_000_000_000L;
                boolean seen = false;
                while (!seen && System.nanoTime() < deadline) {
                    seen = whoami(usher, "ah.example.com", "/").equals("200 a-again");
                    Thread.sleep(100);
                }
                assertThat(seen).as("the backend is used again once its health check passes").isTrue();
            }
        } finally {
            a.close();
        }
    }

    @Test
    void killingOneOfTwoBackendsUnderLoadCausesNoClientErrors() throws Exception {
        Whoami a = Whoami.start("127.0.0.1", 0, "a");
        try (Whoami b = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  127.0.0.1: [127.0.0.1:" + a.port()
                     + ", 127.0.0.1:" + b.port() + "]\n")) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger ok = new AtomicInteger();
            AtomicInteger bad = new AtomicInteger();
            List<String> badStatuses = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(20);
            List<Future<?>> workers = new ArrayList<>();
            for (int c = 0; c < 20; c++) {
                workers.add(pool.submit(() -> {
                    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                    HttpRequest request = HttpRequest.newBuilder(usher.uri("/load")).build();
                    while (!stop.get()) {
                        try {
                            HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
                            if (r.statusCode() == 200) {
                                ok.incrementAndGet();
                            } else {
                                bad.incrementAndGet();
                                badStatuses.add(String.valueOf(r.statusCode()));
                            }
                        } catch (Exception e) {
                            bad.incrementAndGet();
                            badStatuses.add(e.toString());
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(1500);
            int beforeKill = ok.get();
            a.close(); // halfway: one backend dies, its open keep-alive connections with it
            Thread.sleep(1500);
            stop.set(true);
            for (Future<?> f : workers) {
                f.get();
            }
            pool.shutdownNow();
            assertThat(beforeKill).isPositive();
            assertThat(ok.get()).isGreaterThan(beforeKill);
            assertThat(badStatuses).as("client-visible errors").isEmpty();
            assertThat(bad.get()).isZero();
        } finally {
            a.close();
        }
    }
}
