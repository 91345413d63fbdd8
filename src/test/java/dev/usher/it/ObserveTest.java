package dev.usher.it;

import dev.usher.Usher;
import dev.usher.config.ConfigLoader;
import dev.usher.observe.AccessLog;
import dev.usher.observe.ReopenSignal;
import dev.usher.testing.Command;
import dev.usher.testing.RawHttp;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import sun.misc.Signal;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Access log and metrics against real clients: requests of known shapes (200, 404, 502 from a dead backend) over
 * HTTP/1.1 (plain and TLS) and HTTP/2; the metrics text parses strictly and its counters match what was sent; the
 * access log has exactly one JSON line per logged request with the right protocol, status and host; SIGUSR1 (raised
 * in this JVM) reopens the log file after a rename.
 */
class ObserveTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path data;
    @TempDir
    static Path logs;
    static Whoami backend;
    static Usher usher;
    static Path log;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("observe-backend");
        int dead;
        try (ServerSocket s = new ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        log = logs.resolve("access.log");
        int b = backend.port();
        usher = servers.track(Usher.start(ConfigLoader.parse("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:0"}
                admin: "127.0.0.1:0"
                data: %s
                access_log: %s
                sites:
                  app.localhost: 127.0.0.1:%d
                  dead.localhost: 127.0.0.1:%d
                  http://plain.localhost: 127.0.0.1:%d
                  quiet.localhost: {to: 127.0.0.1:%d, access_log: false}
                """.formatted(data, log, b, dead, b, b), "observe.yaml"), 2));
    }

    /** Runs curl once for several URLs (one connection when it can) and returns each response's "version status". */
    private static List<String> curl(String host, boolean https, String version, int times, String path) {
        int port = https ? usher.httpsAddress().getPort() : usher.httpAddress().getPort();
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "-k", "--max-time", "20", version,
                "--resolve", host + ":" + port + ":127.0.0.1"));
        for (int i = 0; i < times; i++) {
            command.addAll(List.of("-o", "/dev/null", "-w", "%{http_version} %{response_code}\\n",
                    (https ? "https://" : "http://") + host + ":" + port + path + i));
        }
        Command c = Command.run(30, command);
        assertThat(c.exitCode()).as(c.output()).isZero();
        return c.output().lines().toList();
    }

    @Test
    void countsAndLogsEachRequestOnce() throws Exception {
        Map<String, Double> before = Prometheus.parse(scrape());
        assertThat(curl("plain.localhost", false, "--http1.1", 3, "/plain")).containsOnly("1.1 200");
        assertThat(curl("nobody.localhost", false, "--http1.1", 2, "/none")).containsOnly("1.1 404");
        assertThat(curl("app.localhost", true, "--http2", 4, "/h2")).containsOnly("2 200");
        assertThat(curl("app.localhost", true, "--http1.1", 2, "/h1")).containsOnly("1.1 200");
        assertThat(curl("dead.localhost", true, "--http2", 2, "/dead")).containsOnly("2 502");
        assertThat(curl("quiet.localhost", true, "--http2", 2, "/quiet")).containsOnly("2 200");

        Map<String, Double> after = Prometheus.parse(scrape());
        // The other test sends requests too: compare what this one added.
        Map<String, Double> m = new HashMap<>(after);
        before.forEach((k, v) -> m.computeIfPresent(k, (key, now) ->
                key.matches("usher_\\w+_(total|count|sum|bucket)\\{.*") ? now - v : now));
        assertThat(m.get("usher_requests_total{site=\"plain.localhost\",protocol=\"h1\",status_class=\"2xx\"}"))
                .isEqualTo(3.0);
        assertThat(m.get("usher_requests_total{site=\"\",protocol=\"h1\",status_class=\"4xx\"}")).isEqualTo(2.0);
        assertThat(m.get("usher_requests_total{site=\"app.localhost\",protocol=\"h2\",status_class=\"2xx\"}"))
                .isEqualTo(4.0);
        assertThat(m.get("usher_requests_total{site=\"app.localhost\",protocol=\"h1\",status_class=\"2xx\"}"))
                .isEqualTo(2.0);
        assertThat(m.get("usher_requests_total{site=\"dead.localhost\",protocol=\"h2\",status_class=\"5xx\"}"))
                .isEqualTo(2.0);
        assertThat(m.get("usher_requests_total{site=\"quiet.localhost\",protocol=\"h2\",status_class=\"2xx\"}"))
                .isEqualTo(2.0);
        double total = m.entrySet().stream().filter(e -> e.getKey().startsWith("usher_requests_total{"))
                .mapToDouble(Map.Entry::getValue).sum();
        assertThat(total).isEqualTo(15.0);
        assertThat(m.get("usher_request_duration_seconds_count{site=\"app.localhost\"}")).isEqualTo(6.0);
        assertThat(m.get("usher_response_body_bytes_total{site=\"app.localhost\"}")).isPositive();
        assertThat(m.get("usher_upstream_up{site=\"app.localhost\",backend=\"127.0.0.1:" + backend.port() + "\"}"))
                .isEqualTo(1.0);
        assertThat(m.keySet()).anyMatch(k -> k.startsWith("usher_upstream_connect_errors_total{backend=\"127.0.0.1:"))
                .contains("usher_open_connections{listener=\"http\"}", "usher_open_connections{listener=\"https\"}",
                        "usher_reloads_total{result=\"success\"}", "usher_reloads_total{result=\"failure\"}",
                        "jvm_memory_used_bytes{area=\"heap\"}", "jvm_buffer_pool_used_bytes{pool=\"direct\"}",
                        "usher_certificate_expiry_timestamp_seconds{name=\"app.localhost\"}");
        assertThat(m.entrySet()).filteredOn(e -> e.getKey().startsWith("usher_upstream_connect_errors_total"))
                .extracting(Map.Entry::getValue).contains(2.0);
        assertThat(after.get("usher_upstream_connections{backend=\"127.0.0.1:" + backend.port()
                + "\",state=\"idle\"}")).isPositive();

        // 15 requests, of which quiet.localhost's 2 are not logged.
        List<Map<String, Object>> lines = awaitLines(log, 13).stream()
                .filter(l -> ((String) l.get("uri")).matches("/(plain|none|h1|h2|dead|quiet)\\d"))
                .toList();
        assertThat(lines).hasSize(13);
        assertThat(lines).filteredOn(l -> "plain.localhost:" + usher.httpAddress().getPort()
                        instanceof String h && h.equals(l.get("host")))
                .hasSize(3).allSatisfy(l -> {
                    assertThat(l).containsEntry("protocol", "h1").containsEntry("status", 200L)
                            .containsEntry("tls", null).containsEntry("site", "plain.localhost");
                    assertThat((String) l.get("upstream")).isEqualTo("127.0.0.1:" + backend.port());
                });
        assertThat(lines).filteredOn(l -> "/none0".equals(l.get("uri")) || "/none1".equals(l.get("uri")))
                .hasSize(2).allSatisfy(l -> assertThat(l).containsEntry("status", 404L)
                        .containsEntry("site", null).containsEntry("upstream", null));
        String appHost = "app.localhost:" + usher.httpsAddress().getPort();
        assertThat(lines).filteredOn(l -> ((String) l.get("uri")).startsWith("/h2"))
                .hasSize(4).allSatisfy(l -> assertThat(l).containsEntry("protocol", "h2")
                        .containsEntry("status", 200L).containsEntry("host", appHost)
                        .containsEntry("tls", "TLSv1.3").containsEntry("method", "GET"));
        assertThat(lines).filteredOn(l -> ((String) l.get("uri")).startsWith("/h1"))
                .hasSize(2).allSatisfy(l -> assertThat(l).containsEntry("protocol", "h1")
                        .containsEntry("status", 200L).containsEntry("host", appHost));
        assertThat(lines).filteredOn(l -> ((String) l.get("uri")).startsWith("/dead"))
                .hasSize(2).allSatisfy(l -> assertThat(l).containsEntry("protocol", "h2")
                        .containsEntry("status", 502L).containsEntry("upstream_ms", null));
        assertThat(lines).noneMatch(l -> ((String) l.get("uri")).startsWith("/quiet"));
        assertThat(lines).allSatisfy(l -> assertThat(l.get("client")).isEqualTo("127.0.0.1"));
    }

    @Test
    void reopensTheLogFileOnSigusr1AfterARename() throws Exception {
        AccessLog accessLog = usher.accessLog();
        assertThat(ReopenSignal.install(accessLog::reopen)).isTrue();
        curl("plain.localhost", false, "--http1.1", 1, "/before");
        awaitWritten(accessLog, Files.exists(log) ? Files.readAllLines(log).size() : 1);
        Path rotated = logs.resolve("access.log.1");
        Files.move(log, rotated);
        Signal.raise(new Signal("USR1"));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!Files.exists(log) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(log).exists();
        curl("plain.localhost", false, "--http1.1", 1, "/after");
        List<Map<String, Object>> fresh = awaitLines(log, 1);
        assertThat(fresh).singleElement().satisfies(l -> assertThat(l).containsEntry("uri", "/after0"));
        assertThat(Files.readString(rotated)).doesNotContain("/after0");
    }

    private static void awaitWritten(AccessLog accessLog, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (accessLog.written() < atLeast && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** Waits (up to 5 s) for {@code n} lines in {@code file}, then parses each as a flat JSON object. */
    static List<Map<String, Object>> awaitLines(Path file, int n) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        List<String> raw = List.of();
        while (System.nanoTime() < deadline) {
            raw = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.US_ASCII) : List.of();
            if (raw.size() >= n) {
                break;
            }
            Thread.sleep(20);
        }
        Thread.sleep(100); // no more than n: a line too many would show up now
        raw = Files.readAllLines(file, StandardCharsets.US_ASCII);
        List<Map<String, Object>> parsed = new ArrayList<>();
        for (String line : raw) {
            parsed.add(FlatJson.parse(line));
        }
        return parsed;
    }

    private static String scrape() throws Exception {
        try (RawHttp raw = new RawHttp(usher.adminAddress().getPort())) {
            RawHttp.Response r = raw.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.headers().get("content-type")).startsWith("text/plain; version=0.0.4");
            return r.body();
        }
    }

    /** A strict reader of one JSON object whose values are strings, whole numbers, decimals or null. */
    static final class FlatJson {
        private final String s;
        private int i;

        private FlatJson(String s) {
            this.s = s;
        }

        static Map<String, Object> parse(String line) {
            FlatJson p = new FlatJson(line);
            Map<String, Object> out = p.object();
            if (p.i != line.length()) {
                throw new IllegalArgumentException("trailing text in " + line);
            }
            return out;
        }

        private Map<String, Object> object() {
            expect('{');
            Map<String, Object> out = new LinkedHashMap<>();
            while (true) {
                String key = string();
                expect(':');
                if (out.put(key, value()) != null) {
                    throw new IllegalArgumentException("duplicate key " + key + " in " + s);
                }
                char c = s.charAt(i++);
                if (c == '}') {
                    return out;
                }
                if (c != ',') {
                    throw new IllegalArgumentException("expected , or } at " + (i - 1) + " in " + s);
                }
            }
        }

        private Object value() {
            char c = s.charAt(i);
            if (c == '"') {
                return string();
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            Matcher m = Pattern.compile("-?\\d+(\\.\\d+)?").matcher(s).region(i, s.length());
            if (!m.lookingAt()) {
                throw new IllegalArgumentException("bad value at " + i + " in " + s);
            }
            i = m.end();
            return m.group(1) == null ? (Object) Long.parseLong(m.group()) : (Object) Double.parseDouble(m.group());
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    throw new IllegalArgumentException("raw control character in " + s);
                }
                if (c == '\\') {
                    char e = s.charAt(i++);
                    switch (e) {
                        case '"', '\\', '/' -> out.append(e);
                        case 'n' -> out.append('\n');
                        case 'u' -> {
                            out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                            i += 4;
                        }
                        default -> throw new IllegalArgumentException("bad escape in " + s);
                    }
                } else {
                    out.append(c);
                }
            }
        }

        private void expect(char c) {
            if (i >= s.length() || s.charAt(i) != c) {
                throw new IllegalArgumentException("expected " + c + " at " + i + " in " + s);
            }
            i++;
        }
    }

    /**
     * A strict reader of the Prometheus text format: every line is {@code # HELP}, {@code # TYPE} or a sample
     * {@code name{labels} value}; each family has HELP and TYPE before its samples; a series appears once; histogram
     * buckets are cumulative and the +Inf bucket equals the count. Returns each series with its value.
     */
    static final class Prometheus {
        private static final Pattern SAMPLE = Pattern.compile(
                "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(?:[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\""
                        + "(?:,[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\")*)?})? "
                        + "(-?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|\\+Inf|-Inf|NaN)");
        private static final Pattern META = Pattern.compile("# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)");

        static Map<String, Double> parse(String text) {
            assertThat(text).endsWith("\n");
            Map<String, String> types = new HashMap<>();
            Map<String, Boolean> help = new HashMap<>();
            Map<String, Double> series = new LinkedHashMap<>();
            Map<String, List<double[]>> buckets = new LinkedHashMap<>();
            for (String line : text.split("\n")) {
                Matcher meta = META.matcher(line);
                if (meta.matches()) {
                    if (meta.group(1).equals("HELP")) {
                        assertThat(help.put(meta.group(2), true)).as("second HELP: " + line).isNull();
                    } else {
                        assertThat(help).as("HELP before TYPE: " + line).containsKey(meta.group(2));
                        assertThat(meta.group(3)).isIn("counter", "gauge", "histogram");
                        assertThat(types.put(meta.group(2), meta.group(3))).as("second TYPE: " + line).isNull();
                    }
                    continue;
                }
                Matcher m = SAMPLE.matcher(line);
                assertThat(m.matches()).as("not a sample line: [" + line + "]").isTrue();
                String name = m.group(1);
                String family = types.containsKey(name) ? name : name.replaceFirst("_(bucket|sum|count)$", "");
                assertThat(types).as("TYPE before samples of " + name).containsKey(family);
                if (!family.equals(name)) {
                    assertThat(types.get(family)).isEqualTo("histogram");
                }
                if (types.get(family).equals("counter")) {
                    assertThat(name).endsWith("_total");
                }
                String key = name + (m.group(2) == null ? "" : m.group(2));
                double value = m.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(3));
                assertThat(series.put(key, value)).as("series twice: " + key).isNull();
                if (name.endsWith("_bucket")) {
                    Matcher le = Pattern.compile(",?le=\"([^\"]+)\"").matcher(m.group(2));
                    assertThat(le.find()).isTrue();
                    String rest = m.group(2).replace(le.group(), "");
                    double bound = le.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY
                            : Double.parseDouble(le.group(1));
                    buckets.computeIfAbsent(family + rest, k -> new ArrayList<>()).add(new double[] {bound, value});
                }
            }
            buckets.forEach((histogram, list) -> {
                for (int i = 1; i < list.size(); i++) {
                    assertThat(list.get(i)[0]).as("bounds ascending in " + histogram).isGreaterThan(list.get(i - 1)[0]);
                    assertThat(list.get(i)[1]).as("cumulative in " + histogram).isGreaterThanOrEqualTo(list.get(i - 1)[1]);
                }
                double[] last = list.get(list.size() - 1);
                assertThat(last[0]).isInfinite();
                String labels = histogram.substring(histogram.indexOf('{'));
                String family = histogram.substring(0, histogram.indexOf('{'));
                assertThat(series.get(family + "_count" + labels)).as("+Inf == count in " + histogram)
                        .isEqualTo(last[1]);
                assertThat(series).containsKey(family + "_sum" + labels);
            });
            return series;
        }
    }
}
