package dev.usher.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.usher.json.JsonReader;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for an acme-dns server's HTTP API (joohoi/acme-dns), started in the test on loopback, following its
 * documented contract for the one endpoint Usher uses: {@code POST /update} with the headers {@code X-Api-User} and
 * {@code X-Api-Key} and the body {@code {"subdomain", "txt"}}, answering {@code 200 {"txt": VALUE}}; a wrong user,
 * key or subdomain gets {@code 401 {"error": "forbidden"}}, a value that is not 43 characters {@code 400 {"error":
 * "bad_txt"}}. Like acme-dns it keeps the two latest values of the account and serves them as the TXT records of
 * {@code fulldomain}: here by writing them into a real {@link Bind} zone with {@code nsupdate}.
 */
public final class AcmeDnsApiServer implements AutoCloseable {
    private final HttpServer server;
    private final String username;
    private final String password;
    private final String fulldomain;
    private final String zone;
    private final Bind bind;
    private final List<String> values = new ArrayList<>();
    private final List<String> requests = new CopyOnWriteArrayList<>();

    /**
     * @param fulldomain the account's domain, {@code SUBDOMAIN.ZONE}
     * @param zone       the Bind zone the values are served from
     */
    public AcmeDnsApiServer(String username, String password, String fulldomain, String zone, Bind bind)
            throws IOException {
        this.username = username;
        this.password = password;
        this.fulldomain = fulldomain;
        this.zone = zone;
        this.bind = bind;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.start();
    }

    public URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The two latest values, oldest first. */
    public synchronized List<String> values() {
        return List.copyOf(values);
    }

    public List<String> requests() {
        return List.copyOf(requests);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath());
            if (!exchange.getRequestMethod().equals("POST") || !exchange.getRequestURI().getPath().equals("/update")) {
                send(exchange, 404, "{\"error\": \"not_found\"}");
                return;
            }
            Map<?, ?> body;
            try {
                body = JsonReader.parse(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                        instanceof Map<?, ?> m ? m : Map.of();
            } catch (JsonReader.BadJson e) {
                body = Map.of();
            }
            String subdomain = fulldomain.substring(0, fulldomain.indexOf('.'));
            if (!username.equals(exchange.getRequestHeaders().getFirst("X-Api-User"))
                    || !password.equals(exchange.getRequestHeaders().getFirst("X-Api-Key"))
                    || !subdomain.equals(body.get("subdomain"))) {
                send(exchange, 401, "{\"error\": \"forbidden\"}");
                return;
            }
            if (!(body.get("txt") instanceof String txt) || txt.length() != 43) {
                send(exchange, 400, "{\"error\": \"bad_txt\"}");
                return;
            }
            synchronized (this) { // one update at a time, so the zone always ends with the two latest values
                values.add(txt);
                if (values.size() > 2) {
                    values.remove(0);
                }
                List<String> updates = new ArrayList<>(List.of("update delete " + fulldomain + ". TXT"));
                values.forEach(v -> updates.add("update add " + fulldomain + ". 60 TXT \"" + v + "\""));
                bind.nsupdate(zone, updates.toArray(String[]::new));
            }
            send(exchange, 200, "{\"txt\": \"" + txt + "\"}");
        }
    }

    private static void send(HttpExchange exchange, int status, String json) throws IOException {
        JsonAnswer.send(exchange, status, json);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
