package dev.usher.admin;

import io.netty.handler.codec.http.HttpResponseStatus;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One admin API answer, made off the event loop and written back on it.
 *
 * @param status      the status
 * @param contentType its content type
 * @param body        its bytes
 * @param headers     more headers (ETag, Set-Cookie, Content-Disposition)
 * @param file        when not null, the body instead of {@code body}: a temporary file sent from disk and deleted
 *                    afterwards (a backup archive)
 */
record Answer(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers, Path file) {
    static final String JSON = "application/json; charset=utf-8";

    Answer(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {
        this(status, contentType, body, headers, null);
    }

    static Answer json(HttpResponseStatus status, String json) {
        return new Answer(status, JSON, (json + "\n").getBytes(StandardCharsets.UTF_8), Map.of());
    }

    static Answer error(HttpResponseStatus status, String message) {
        return json(status, Json.error(message));
    }

    static Answer empty(HttpResponseStatus status) {
        return new Answer(status, JSON, new byte[0], Map.of());
    }

    /** This answer with one more header. */
    Answer with(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Answer(status, contentType, body, more, file);
    }

    /** This answer with {@code ETag: "version"}. */
    Answer tagged(String version) {
        return with("ETag", "\"" + version + "\"");
    }
}
