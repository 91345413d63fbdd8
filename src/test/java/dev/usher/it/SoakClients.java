package dev.usher.it;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP/3 and websocket part of bench/soak.sh's traffic (hey and h2load do HTTP/1.1 and HTTP/2): not a test.
 * {@code SoakClients H3_PORT SERVER_NAME WS_PORT SECONDS}: {@code h3.clients} QUIC connections, each sending GETs
 * one after another at about {@code h3.rps} per second, reconnecting when the connection fails; {@code ws.clients}
 * websocket connections through Usher to the backends' echo, each sending a message every 100 ms and checking
 * the echo, reconnecting when closed. Prints a summary line every 10 s and a final "soak-clients:" line with the
 * counts by outcome.
 */
final class SoakClients {
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
    private final long endNanos;

    private SoakClients(long seconds) {
        this.endNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    public static void main(String[] args) throws Exception {
        int h3Port = Integer.parseInt(args[0]);
        String serverName = args[1];
        int wsPort = Integer.parseInt(args[2]);
        long seconds = Long.parseLong(args[3]);
        int h3Clients = Integer.getInteger("h3.clients", 2);
        int h3Rps = Integer.getInteger("h3.rps", 20);
        int wsClients = Integer.getInteger("ws.clients", 10);
        SoakClients soak = new SoakClients(seconds);
        Thread[] threads = new Thread[h3Clients + wsClients];
        for (int i = 0; i < h3Clients; i++) {
            threads[i] = Thread.ofVirtual().start(() -> soak.h3(h3Port, serverName, h3Rps));
        }
        for (int i = 0; i < wsClients; i++) {
            threads[h3Clients + i] = Thread.ofVirtual().start(() -> soak.websocket(wsPort));
        }
        while (System.nanoTime() < soak.endNanos) {
            Thread.sleep(Math.min(10_000, Math.max(1, TimeUnit.NANOSECONDS.toMillis(soak.endNanos - System.nanoTime()))));
            System.out.println("soak-clients-progress: " + soak.summary());
        }
        for (Thread t : threads) {
            t.join(15_000);
        }
        System.out.println("soak-clients: " + soak.summary());
        System.exit(0);
    }

    private boolean running() {
        return System.nanoTime() < endNanos;
    }

    private void count(String outcome) {
        counts.computeIfAbsent(outcome, k -> new LongAdder()).increment();
    }

    private String summary() {
        StringBuilder out = new StringBuilder();
        new TreeMap<>(counts).forEach((k, v) -> out.append(k).append('=').append(v.sum()).append(' '));
        return out.toString().trim();
    }

    private void h3(int port, String serverName, int rps) {
        long gapNanos = TimeUnit.SECONDS.toNanos(1) / Math.max(1, rps);
        while (running()) {
            try (H3Client client = H3Client.connect(port, serverName)) {
                count("h3.connect");
                while (running()) {
                    long start = System.nanoTime();
                    H3Client.Response r = client.get("/").get(20, TimeUnit.SECONDS);
                    count("h3." + r.status());
                    long rest = gapNanos - (System.nanoTime() - start);
                    if (rest > 0) {
                        TimeUnit.NANOSECONDS.sleep(rest);
                    }
                }
            } catch (Exception e) {
                count("h3.error." + e.getClass().getSimpleName());
                pause();
            }
        }
    }

    private void websocket(int port) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        while (running()) {
            Echoes echoes = new Echoes();
            try {
                WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws"),
                        echoes).get(10, TimeUnit.SECONDS);
                count("ws.connect");
                for (long i = 0; running() && !echoes.closed.isDone(); i++) {
                    String text = "soak " + i;
                    echoes.expect(text);
                    ws.sendText(text, true).get(10, TimeUnit.SECONDS);
                    String back = echoes.next.get(10, TimeUnit.SECONDS);
                    count(text.equals(back) ? "ws.echoed" : "ws.wrong-echo");
                    Thread.sleep(100);
                }
                if (echoes.closed.isDone()) {
                    count("ws.closed-by-server");
                } else {
                    ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
                }
            } catch (Exception e) {
                count("ws.error." + (e.getCause() == null ? e : e.getCause()).getClass().getSimpleName());
                pause();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One expected echo at a time. */
    private static final class Echoes implements WebSocket.Listener {
        volatile CompletableFuture<String> next = new CompletableFuture<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        private final StringBuilder text = new StringBuilder();

        void expect(String ignored) {
            next = new CompletableFuture<>();
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                next.complete(text.toString());
                text.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            closed.complete(status);
            next.completeExceptionally(new IllegalStateException("closed " + status));
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.complete(-1);
            next.completeExceptionally(error);
        }
    }
}
