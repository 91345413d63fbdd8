package dev.usher.observe;

import dev.usher.json.JsonText;
import dev.usher.config.UpstreamAddress;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writes a {@link RequestRecord} as one line of JSON, in ASCII: characters outside printable ASCII (and quotes,
 * backslashes) are escaped, so a crafted URI or Host can neither break the line nor the JSON. Example:
 * <pre>{"time":"2025-05-01T12:00:00.123Z","client":"203.0.113.9","host":"app.example.com","method":"GET",
 * "uri":"/x","protocol":"h2","status":200,"bytes_in":0,"bytes_out":512,"duration_ms":1.204,
 * "upstream":"127.0.0.1:3000","upstream_ms":0.981,"tls":"TLSv1.3","site":"app.example.com","route":null}</pre>
 * ({@code route} is the site's {@code paths:} entry that served the request, such as {@code "/api/"}; the upstream
 * has its scheme when it is not plain HTTP, such as {@code "https://10.0.0.5:8006"}).
 *
 * <p>Not thread-safe: one instance per writer thread (it caches the formatted second of the last line).
 */
final class AccessLogFormat {
    private static final DateTimeFormatter SECOND = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
            .withZone(ZoneOffset.UTC);

    private long cachedSecond = Long.MIN_VALUE;
    private String cachedPrefix;

    /** Appends {@code r} and a newline to {@code out}. */
    void append(RequestRecord r, StringBuilder out) {
        out.append("{\"time\":\"");
        time(r.startMillis(), out);
        out.append("\",\"client\":");
        string(r.client(), out);
        out.append(",\"host\":");
        string(r.host(), out);
        out.append(",\"method\":");
        string(r.method(), out);
        out.append(",\"uri\":");
        string(r.uri(), out);
        out.append(",\"protocol\":\"").append(r.protocol().label());
        out.append("\",\"status\":").append(r.status());
        out.append(",\"bytes_in\":").append(r.bytesIn());
        out.append(",\"bytes_out\":").append(r.bytesOut());
        out.append(",\"duration_ms\":");
        millis(r.durationNanos(), out);
        out.append(",\"upstream\":");
        UpstreamAddress upstream = r.upstream();
        if (upstream == null) {
            out.append("null");
        } else {
            string(upstream.toString(), out);
        }
        out.append(",\"upstream_ms\":");
        if (r.upstreamNanos() < 0) {
            out.append("null");
        } else {
            millis(r.upstreamNanos(), out);
        }
        out.append(",\"tls\":");
        string(r.tls(), out);
        out.append(",\"site\":");
        string(r.siteName(), out);
        out.append(",\"route\":");
        string(r.route(), out);
        out.append("}\n");
    }

    /**
     * Appends a relayed connection's line and a newline:
     * <pre>{"time":"2025-05-01T12:00:00.123Z","client":"203.0.113.9","stream":":2222","kind":"tcp","sni":null,
     * "upstream":"10.0.0.5:22","bytes_in":5120,"bytes_out":20480,"duration_ms":61234.005,
     * "ending":"client_closed"}</pre>
     */
    void append(StreamRecord r, StringBuilder out) {
        out.append("{\"time\":\"");
        time(r.startMillis(), out);
        out.append("\",\"client\":");
        string(r.client(), out);
        out.append(",\"stream\":");
        string(r.stream(), out);
        out.append(",\"kind\":\"").append(r.kind());
        out.append("\",\"sni\":");
        string(r.serverName(), out);
        out.append(",\"upstream\":");
        if (r.upstream() == null) {
            out.append("null");
        } else {
            string(r.upstream().authority(), out);
        }
        out.append(",\"bytes_in\":").append(r.bytesIn());
        out.append(",\"bytes_out\":").append(r.bytesOut());
        out.append(",\"duration_ms\":");
        millis(r.durationNanos(), out);
        out.append(",\"ending\":\"").append(r.ending().label()).append("\"}\n");
    }

    private void time(long epochMillis, StringBuilder out) {
        long second = Math.floorDiv(epochMillis, 1000);
        if (second != cachedSecond) {
            cachedSecond = second;
            cachedPrefix = SECOND.format(Instant.ofEpochSecond(second));
        }
        int ms = (int) Math.floorMod(epochMillis, 1000);
        out.append(cachedPrefix).append('.').append((char) ('0' + ms / 100)).append((char) ('0' + ms / 10 % 10))
                .append((char) ('0' + ms % 10)).append('Z');
    }

    /** Nanoseconds as milliseconds with three decimals (microsecond resolution), without a double. */
    private static void millis(long nanos, StringBuilder out) {
        long micros = Math.max(0, nanos) / 1000;
        int frac = (int) (micros % 1000);
        out.append(micros / 1000).append('.').append((char) ('0' + frac / 100)).append((char) ('0' + frac / 10 % 10))
                .append((char) ('0' + frac % 10));
    }

    static void string(String s, StringBuilder out) {
        JsonText.quote(s, out);
    }
}
