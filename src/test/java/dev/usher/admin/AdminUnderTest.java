package dev.usher.admin;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.ConfigWatcher;
import dev.usher.reload.Reloader;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An Usher run from a config file with its admin API, reloading on the file's changes as {@code usher run} does, and
 * a client of both: the admin API with the session's CSRF token, and plain HTTP through the proxy.
 */
final class AdminUnderTest implements AutoCloseable {
    final Path file;
    final Usher usher;
    final Reloader reloader;
    private final ConfigWatcher watcher;
    private final HttpClient http = HttpClient.newHttpClient();
    final String csrf;

    private AdminUnderTest(Path file, Usher usher, Reloader reloader, ConfigWatcher watcher) throws Exception {
        this.file = file;
        this.usher = usher;
        this.reloader = reloader;
        this.watcher = watcher;
        this.csrf = field(get("/api/session").body(), "csrf");
    }

    /** Starts Usher on {@code file} (one event loop, 1 s certificate retries). */
    static AdminUnderTest start(Path file) throws Exception {
        Usher usher = Usher.start(ConfigLoader.load(file), 1, Retry.DEFAULT, Duration.ofSeconds(1));
        Reloader reloader = usher.reloadFrom(file);
        ConfigWatcher watcher = ConfigWatcher.start(file, () -> reloader.reloadIfChanged("file change"));
        return new AdminUnderTest(file, usher, reloader, watcher);
    }

    /** The file's version as an If-Match value. */
    String version() throws Exception {
        return "\"" + ConfigFile.version(Files.readAllBytes(file)) + "\"";
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + usher.adminAddress().getPort() + path);
    }

    HttpClient http() {
        return http;
    }

    HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A write to the admin API with the CSRF token, {@code If-Match: ifMatch} (unless null) and a JSON body. */
    HttpResponse<String> write(String method, String path, String ifMatch, String json) throws Exception {
        return write(method, path, ifMatch, json, csrf);
    }

    /** The same with another CSRF token (or none: null). */
    HttpResponse<String> write(String method, String path, String ifMatch, String json, String csrf)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).method(method, json == null
                ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (ifMatch != null) {
            b.header("If-Match", ifMatch);
        }
        if (csrf != null) {
            b.header("X-Usher-CSRF", csrf);
        }
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A request through Usher's plain-HTTP listener with the Host given; the whole answer as text. */
    String request(String method, String path, String body, String host) throws Exception {
        try (Socket s = new Socket("127.0.0.1", usher.httpAddress().getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    @Override
    public void close() {
        watcher.close();
        usher.close();
    }
}
