package dev.usher.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A server started in the test that follows the CrowdSec local API's documented bouncer endpoint,
 * {@code GET /v1/decisions/stream} (Debian's {@code crowdsec} package cannot be installed on a machine without the
 * internet: its post-install registers with the central API): the bouncer key in {@code X-Api-Key} (403 with
 * {@code {"message":"access forbidden"}} otherwise); {@code startup=true} answers every active decision under
 * {@code new}, later calls what was added and deleted since the bouncer's last call, {@code null} for an empty list.
 * Decisions are objects with {@code id, origin, type, scope, value, duration, scenario}, as {@code cscli decisions
 * add} makes them.
 */
final class CrowdSecLocalApi implements AutoCloseable {
    private record Decision(long id, String type, String scope, String value) {
        String json() {
            return "{\"id\":" + id + ",\"origin\":\"cscli\",\"type\":\"" + type + "\",\"scope\":\"" + scope
                    + "\",\"value\":\"" + value + "\",\"duration\":\"59m59s\",\"scenario\":\"manual '" + type
                    + "' from 'test'\"}";
        }
    }

    private final HttpServer server;
    private final String key;
    private final AtomicLong ids = new AtomicLong(1000);
    private final Map<Long, Decision> active = new LinkedHashMap<>();
    private final List<Decision> added = new ArrayList<>();
    private final List<Decision> deleted = new ArrayList<>();
    final AtomicLong pulls = new AtomicLong();
    final AtomicLong startupPulls = new AtomicLong();

    private CrowdSecLocalApi(HttpServer server, String key) {
        this.server = server;
        this.key = key;
    }

    /** Starts on {@code port} (0: any) accepting the bouncer key {@code key}. */
    static CrowdSecLocalApi start(int port, String key) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
        CrowdSecLocalApi api = new CrowdSecLocalApi(server, key);
        server.createContext("/v1/decisions/stream", api::stream);
        server.start();
        return api;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** As {@code cscli decisions add --ip VALUE --type TYPE} (scope Ip) or {@code --range} (scope Range). */
    synchronized void add(String scope, String value, String type) {
        Decision d = new Decision(ids.incrementAndGet(), type, scope, value);
        active.put(d.id(), d);
        added.add(d);
    }

    /** As {@code cscli decisions delete --ip VALUE} (or {@code --range}). */
    synchronized void delete(String value) {
        active.values().removeIf(d -> {
            if (d.value().equals(value)) {
                added.remove(d);
                deleted.add(d);
                return true;
            }
            return false;
        });
    }

    private void stream(HttpExchange e) throws IOException {
        if (!key.equals(e.getRequestHeaders().getFirst("X-Api-Key"))) {
            send(e, 403, "{\"message\":\"access forbidden\"}");
            return;
        }
        pulls.incrementAndGet();
        boolean startup = String.valueOf(e.getRequestURI().getQuery()).contains("startup=true");
        String body;
        synchronized (this) {
            if (startup) {
                startupPulls.incrementAndGet();
                body = "{\"new\":" + list(new ArrayList<>(active.values())) + ",\"deleted\":null}";
            } else {
                body = "{\"new\":" + list(added) + ",\"deleted\":" + list(deleted) + "}";
            }
            added.clear();
            deleted.clear();
        }
        send(e, 200, body);
    }

    private static String list(List<Decision> decisions) {
        if (decisions.isEmpty()) {
            return "null";
        }
        List<String> items = new ArrayList<>();
        decisions.forEach(d -> items.add(d.json()));
        return "[" + String.join(",", items) + "]";
    }

    private static void send(HttpExchange e, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        e.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
        e.sendResponseHeaders(status, bytes.length);
        e.getResponseBody().write(bytes);
        e.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
