package dev.usher.testing;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;

/**
 * A server started in the test that follows Authelia's documented forward-auth contract (Authelia ≥ 4.38,
 * {@code GET /api/authz/forward-auth}; Authelia itself is not packaged for Debian): it reads the original request
 * from {@code X-Forwarded-Method}, {@code -Proto}, {@code -Host}, {@code -Uri} and {@code -For}, and the session
 * from the {@code authelia_session} cookie or an {@code Authorization: Basic} header. Authorized: 200 with
 * {@code Remote-User}, {@code Remote-Groups}, {@code Remote-Email}, {@code Remote-Name}. Not logged in: 302 (GET,
 * HEAD) or 303 (other methods) to the portal with {@code rd} (the original URL) and {@code rm} (its method), and a
 * small HTML body; 401 instead for a request that is not a browser's ({@code X-Requested-With: XMLHttpRequest}).
 * Logged in but not allowed (the {@code /admin} path for a user outside the {@code admins} group): 403.
 *
 * <p>Also answers as Authentik's proxy outpost for the preset: {@code /outpost.goauthentik.io/auth/caddy} (the same
 * verdicts, {@code X-Authentik-*} headers) and {@code /outpost.goauthentik.io/start} (a page of its own).
 */
public final class AutheliaForwardAuthServer implements AutoCloseable {
    public static final String PORTAL = "https://auth.example.com/";

    /** Sessions: cookie value → user. */
    private static final Map<String, User> SESSIONS = Map.of(
            "alice-session", new User("alice", List.of("admins", "dev"), "alice@example.com", "Alice Liddell"),
            "bob-session", new User("bob", List.of(), "bob@example.com", "Bob"));

    public record User(String name, List<String> groups, String email, String displayName) {
    }

    private final HttpServer server;
    /** Every question's headers, newest last. */
    public final ConcurrentLinkedDeque<Headers> questions = new ConcurrentLinkedDeque<>();
    public final AtomicLong asked = new AtomicLong();
    /** How long each answer waits first (a slow server). */
    public volatile long delayMillis;

    private AutheliaForwardAuthServer(HttpServer server) {
        this.server = server;
    }

    public static AutheliaForwardAuthServer start() throws IOException {
        return serve(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64));
    }

    /** The same over HTTPS, with {@code tls}'s key and certificate (e.g. from a throwaway CA of the test). */
    public static AutheliaForwardAuthServer startHttps(SSLContext tls) throws IOException {
        HttpsServer server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setHttpsConfigurator(new HttpsConfigurator(tls));
        return serve(server);
    }

    private static AutheliaForwardAuthServer serve(HttpServer server) {
        server.setExecutor(Executors.newCachedThreadPool());
        AutheliaForwardAuthServer auth = new AutheliaForwardAuthServer(server);
        server.createContext("/api/authz/forward-auth", e -> auth.verdict(e, false));
        server.createContext("/outpost.goauthentik.io/auth/caddy", e -> auth.verdict(e, true));
        server.createContext("/outpost.goauthentik.io/start", e -> send(e, 200, Map.of(), "authentik outpost\n"));
        server.start();
        return auth;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public Headers lastQuestion() {
        return questions.peekLast();
    }

    private void verdict(HttpExchange e, boolean authentik) throws IOException {
        asked.incrementAndGet();
        questions.add(e.getRequestHeaders());
        if (delayMillis > 0) {
            try {
                Thread.sleep(delayMillis);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        Headers in = e.getRequestHeaders();
        String method = in.getFirst("X-Forwarded-Method");
        String url = in.getFirst("X-Forwarded-Proto") + "://" + in.getFirst("X-Forwarded-Host")
                + in.getFirst("X-Forwarded-Uri");
        User user = user(in);
        if (user == null) {
            if ("XMLHttpRequest".equals(in.getFirst("X-Requested-With"))) {
                send(e, 401, Map.of(), "401 Unauthorized");
                return;
            }
            String location = PORTAL + "?rd=" + URLEncoder.encode(url, StandardCharsets.UTF_8) + "&rm=" + method;
            int status = "GET".equals(method) || "HEAD".equals(method) ? 302 : 303;
            send(e, status, Map.of("Location", location, "Set-Cookie", "authelia_flow=1; Path=/"),
                    "<a href=\"" + location + "\">" + status + (status == 302 ? " Found" : " See Other") + "</a>");
            return;
        }
        if (in.getFirst("X-Forwarded-Uri").startsWith("/admin") && !user.groups().contains("admins")) {
            send(e, 403, Map.of(), "403 Forbidden");
            return;
        }
        Map<String, String> headers = authentik
                ? Map.of("X-Authentik-Username", user.name(), "X-Authentik-Email", user.email())
                : user.groups().isEmpty()
                ? Map.of("Remote-User", user.name(), "Remote-Email", user.email(), "Remote-Name", user.displayName())
                : Map.of("Remote-User", user.name(), "Remote-Groups", String.join(",", user.groups()),
                "Remote-Email", user.email(), "Remote-Name", user.displayName());
        send(e, 200, headers, "");
    }

    private static User user(Headers in) {
        for (String cookies : in.getOrDefault("Cookie", List.of())) {
            for (String cookie : cookies.split(";")) {
                String[] kv = cookie.strip().split("=", 2);
                if (kv.length == 2 && kv[0].equals("authelia_session") && SESSIONS.containsKey(kv[1])) {
                    return SESSIONS.get(kv[1]);
                }
            }
        }
        String authorization = in.getFirst("Authorization");
        if (authorization != null && authorization.startsWith("Basic ")) {
            String pair = new String(Base64.getDecoder().decode(authorization.substring(6)), StandardCharsets.UTF_8);
            if (pair.equals("bob:hunter2")) {
                return SESSIONS.get("bob-session");
            }
        }
        return null;
    }

    private static void send(HttpExchange e, int status, Map<String, String> headers, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        headers.forEach((k, v) -> e.getResponseHeaders().add(k, v));
        if (bytes.length > 0) {
            e.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
        }
        e.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            e.getResponseBody().write(bytes);
        }
        e.close();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
