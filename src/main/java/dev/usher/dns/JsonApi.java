package dev.usher.dns;

import dev.usher.json.JsonReader;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * HTTPS calls to a DNS provider's JSON API (Cloudflare, acme-dns): one HTTP client per provider, bounded timeouts,
 * the answer parsed with Usher's JSON reader. Failures to connect say which API could not be reached; the
 * provider's own error answers are left to the provider class, which knows their shape.
 */
final class JsonApi implements AutoCloseable {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final HttpClient client;

    /** @param name the provider, for messages: "Cloudflare" */
    JsonApi(String name) {
        this.name = name;
        this.client = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
                .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    }

    /** An answer: its status, its JSON (null when the body is empty or not JSON) and its body as text. */
    record Reply(int status, Object json, String body) {
        boolean ok() {
            return status >= 200 && status < 300;
        }

        /** The JSON object's member, or null. */
        Object get(String key) {
            return json instanceof Map<?, ?> map ? map.get(key) : null;
        }
    }

    /** Sends {@code method uri} with the headers (name, value, ...) and an optional JSON body. */
    Reply call(String method, URI uri, String jsonBody, String... headers) throws DnsException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json").header("User-Agent", "Usher");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        if (jsonBody != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new DnsException("could not reach the " + name + " API at " + uri.getScheme() + "://"
                    + uri.getRawAuthority() + ": " + describe(e), e);
        }
        Object json = null;
        String body = response.body() == null ? "" : response.body();
        try {
            json = body.isBlank() ? null : JsonReader.parse(body);
        } catch (JsonReader.BadJson notJson) {
            // left null: the caller reports the status and the start of the body
        }
        return new Reply(response.statusCode(), json, body);
    }

    /** The start of a body that is not the JSON expected, for a message. */
    static String excerpt(String body) {
        String oneLine = body.strip().replaceAll("\\s+", " ");
        return oneLine.length() > 200 ? oneLine.substring(0, 200) + "…" : oneLine;
    }

    private static String describe(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.http.HttpConnectTimeoutException) {
                return "connection timed out";
            }
            if (t instanceof java.net.http.HttpTimeoutException) {
                return "no answer within " + REQUEST_TIMEOUT.toSeconds() + " s";
            }
            if (t instanceof java.net.ConnectException) {
                return "connection refused";
            }
            if (t instanceof javax.net.ssl.SSLException) {
                return "TLS failed: " + t.getMessage();
            }
        }
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** Ends what is still in flight: called once no record is being removed any more, or when Usher gave up. */
    @Override
    public void close() {
        client.shutdownNow();
    }
}
