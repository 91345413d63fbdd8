package dev.usher.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.usher.json.JsonReader;
import dev.usher.json.JsonText;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for Cloudflare's API v4 (a real service the tests cannot reach), started in the test on loopback. It
 * follows Cloudflare's documented contract for the endpoints Usher uses, nothing more:
 * <ul>
 *   <li>{@code GET /client/v4/zones?name=ZONE} ("List Zones"),</li>
 *   <li>{@code POST /client/v4/zones/{zone_id}/dns_records} ("Create DNS Record"),</li>
 *   <li>{@code GET /client/v4/zones/{zone_id}/dns_records?type=&name=} ("List DNS Records"),</li>
 *   <li>{@code DELETE /client/v4/zones/{zone_id}/dns_records/{dns_record_id}} ("Delete DNS Record"),</li>
 * </ul>
 * with {@code Authorization: Bearer TOKEN}, every answer in the envelope {@code {"success", "errors": [{"code",
 * "message"}], "messages", "result"}}, and Cloudflare's error answers: 400 code 9106 without the header, 403 code
 * 10000 "Authentication error" for a wrong token, 400 code 7003 for an unknown zone id, 400 code 81058 "An identical
 * record already exists.", 404 code 81044 "Record does not exist.", and 429 code 971 when a failure is scheduled.
 *
 * <p>Records it accepts go, when it was given a {@link Bind}, into that real DNS server (with {@code nsupdate}), as
 * Cloudflare's own name servers would serve them; so a CA can validate them.
 */
public final class CloudflareApiServer implements AutoCloseable {
    private final HttpServer server;
    private final String token;
    private final Map<String, String> zoneIds = new LinkedHashMap<>();
    private final Bind bind;
    /** Records by id: name, content, zone name. */
    private final Map<String, Map<String, String>> records = new LinkedHashMap<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final AtomicInteger failCreates = new AtomicInteger();

    /**
     * @param token the API token it accepts
     * @param zones the zones it holds, by name (their ids are made up here)
     * @param bind  where accepted records are published, or null to keep them here only
     */
    public CloudflareApiServer(String token, List<String> zones, Bind bind) throws IOException {
        this.token = token;
        this.bind = bind;
        for (String zone : zones) {
            zoneIds.put(zone, UUID.nameUUIDFromBytes(zone.getBytes(StandardCharsets.UTF_8)).toString()
                    .replace("-", ""));
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/client/v4/", this::handle);
        server.start();
    }

    /** The API base to give Usher as {@code api:}. */
    public URI api() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/client/v4");
    }

    public String zoneId(String zone) {
        return zoneIds.get(zone);
    }

    /** The next {@code n} record creations are refused as rate limited (HTTP 429, code 971). */
    public void failNextCreates(int n) {
        failCreates.set(n);
    }

    /** The records held now: each as {@code NAME CONTENT}. */
    public synchronized List<String> records() {
        return records.values().stream().map(r -> r.get("name") + " " + r.get("content")).toList();
    }

    /** The requests received, each as {@code METHOD PATH?QUERY}. */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            URI uri = exchange.getRequestURI();
            requests.add(method + " " + uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()));
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth == null) {
                send(exchange, 400, error(9106, "Missing X-Auth-Key, X-Auth-Email or Authorization headers"));
                return;
            }
            if (!auth.equals("Bearer " + token)) {
                send(exchange, 403, error(10000, "Authentication error"));
                return;
            }
            String[] path = uri.getRawPath().substring("/client/v4/".length()).split("/");
            Map<String, String> query = query(uri.getRawQuery());
            if (path.length == 1 && path[0].equals("zones") && method.equals("GET")) {
                listZones(exchange, query.get("name"));
            } else if (path.length >= 3 && path[0].equals("zones") && path[2].equals("dns_records")) {
                String zone = zoneIds.entrySet().stream().filter(e -> e.getValue().equals(path[1]))
                        .map(Map.Entry::getKey).findFirst().orElse(null);
                if (zone == null) {
                    send(exchange, 400, error(7003, "Could not route to /zones/" + path[1] + "/dns_records, perhaps "
                            + "your object identifier is invalid?"));
                } else if (path.length == 3 && method.equals("POST")) {
                    create(exchange, zone);
                } else if (path.length == 3 && method.equals("GET")) {
                    list(exchange, zone, query);
                } else if (path.length == 4 && method.equals("DELETE")) {
                    delete(exchange, path[3]);
                } else {
                    send(exchange, 405, error(10405, "Method not allowed"));
                }
            } else {
                send(exchange, 404, error(7000, "No route for that URI"));
            }
        } catch (RuntimeException e) {
            send(exchange, 500, error(10000, "internal: " + e));
        }
    }

    private void listZones(HttpExchange exchange, String name) throws IOException {
        StringBuilder result = new StringBuilder("[");
        zoneIds.forEach((zone, id) -> {
            if (name == null || name.equals(zone)) {
                result.append(result.length() > 1 ? "," : "").append("{\"id\":").append(JsonText.quote(id))
                        .append(",\"name\":").append(JsonText.quote(zone)).append(",\"status\":\"active\"}");
            }
        });
        send(exchange, 200, ok(result.append(']').toString()));
    }

    private void create(HttpExchange exchange, String zone) throws IOException {
        if (failCreates.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            send(exchange, 429, error(971, "Please wait and consider throttling your request speed"));
            return;
        }
        Map<?, ?> body;
        try {
            body = (Map<?, ?>) JsonReader.parse(new String(exchange.getRequestBody().readAllBytes(),
                    StandardCharsets.UTF_8));
        } catch (JsonReader.BadJson | ClassCastException e) {
            send(exchange, 400, error(9207, "Request body is invalid."));
            return;
        }
        if (!"TXT".equals(body.get("type")) || !(body.get("name") instanceof String name)
                || !(body.get("content") instanceof String content)) {
            send(exchange, 400, error(9000, "DNS name, type and content are required"));
            return;
        }
        String id;
        synchronized (this) {
            boolean duplicate = records.values().stream()
                    .anyMatch(r -> r.get("name").equals(name) && r.get("content").equals(content));
            if (duplicate) {
                send(exchange, 400, error(81058, "An identical record already exists."));
                return;
            }
            id = UUID.randomUUID().toString().replace("-", "");
            records.put(id, Map.of("name", name, "content", content, "zone", zone));
        }
        if (bind != null) {
            bind.nsupdate(zone, "update add " + name + ". 60 TXT \"" + content + "\"");
        }
        send(exchange, 200, ok("{\"id\":" + JsonText.quote(id) + ",\"type\":\"TXT\",\"name\":" + JsonText.quote(name)
                + ",\"content\":" + JsonText.quote(content) + ",\"ttl\":" + body.get("ttl") + ",\"proxied\":false}"));
    }

    private synchronized void list(HttpExchange exchange, String zone, Map<String, String> query) throws IOException {
        StringBuilder result = new StringBuilder("[");
        records.forEach((id, r) -> {
            if (r.get("zone").equals(zone) && (query.get("name") == null || query.get("name").equals(r.get("name")))
                    && (query.get("type") == null || query.get("type").equals("TXT"))) {
                result.append(result.length() > 1 ? "," : "").append("{\"id\":").append(JsonText.quote(id))
                        .append(",\"type\":\"TXT\",\"name\":").append(JsonText.quote(r.get("name")))
                        .append(",\"content\":").append(JsonText.quote(r.get("content"))).append('}');
            }
        });
        send(exchange, 200, ok(result.append(']').toString()));
    }

    private void delete(HttpExchange exchange, String id) throws IOException {
        Map<String, String> removed;
        synchronized (this) {
            removed = records.remove(id);
        }
        if (removed == null) {
            send(exchange, 404, error(81044, "Record does not exist."));
            return;
        }
        if (bind != null) {
            bind.nsupdate(removed.get("zone"), "update delete " + removed.get("name") + ". TXT \""
                    + removed.get("content") + "\"");
        }
        send(exchange, 200, ok("{\"id\":" + JsonText.quote(id) + "}"));
    }

    private static String ok(String result) {
        return "{\"success\":true,\"errors\":[],\"messages\":[],\"result\":" + result + "}";
    }

    private static String error(int code, String message) {
        return "{\"success\":false,\"errors\":[{\"code\":" + code + ",\"message\":" + JsonText.quote(message)
                + "}],\"messages\":[],\"result\":null}";
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> query = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return query;
    }

    private static void send(HttpExchange exchange, int status, String json) throws IOException {
        JsonAnswer.send(exchange, status, json);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
