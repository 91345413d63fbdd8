package dev.usher.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The web UI's files, bundled in the jar: {@code GET /} is {@code index.html}, {@code GET /ui/NAME} is {@code NAME}.
 * Read once from the class path and kept (they are a few kilobytes). Names with {@code ..}, backslashes or empty
 * segments are refused, so nothing outside the folder can be asked for.
 */
final class StaticFiles {
    /** What every UI file is served with: no inline code may run, no framing, no sniffing, always revalidated. */
    static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                    + "script-src 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options", "nosniff",
            "Cache-Control", "no-cache",
            "Referrer-Policy", "no-referrer");
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("mjs", "text/javascript; charset=utf-8"),
            Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", "application/json; charset=utf-8"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("webp", "image/webp"),
            Map.entry("woff2", "font/woff2"),
            Map.entry("txt", "text/plain; charset=utf-8"));

    /** One file: its bytes and content type. */
    record File(byte[] bytes, String contentType) {
    }

    private final String root;
    private final Map<String, File> cache = new ConcurrentHashMap<>();

    /** {@code root}: the class-path folder, such as {@code dev/usher/admin/ui/}. */
    StaticFiles(String root) {
        this.root = root;
    }

    /** True for the paths this serves: {@code /} and {@code /ui/...}. */
    static boolean serves(String path) {
        return path.equals("/") || path.equals("/index.html") || path.startsWith("/ui/");
    }

    /** The file for a request path, if there is one. */
    Optional<File> find(String path) {
        String name = path.equals("/") || path.equals("/index.html") ? "index.html"
                : path.substring("/ui/".length());
        if (name.isEmpty() || name.contains("..") || name.contains("\\") || name.contains("//")
                || name.startsWith("/") || name.endsWith("/")) {
            return Optional.empty();
        }
        int dot = name.lastIndexOf('.');
        String type = dot < 0 ? null : TYPES.get(name.substring(dot + 1).toLowerCase(Locale.ROOT));
        if (type == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(cache.computeIfAbsent(name, n -> load(n, type))); // misses are not kept
    }

    private File load(String name, String type) {
        try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(root + name)) {
            return in == null ? null : new File(in.readAllBytes(), type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
