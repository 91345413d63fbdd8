package dev.usher.statics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The HTML page of a folder's contents ({@code browse: true}): folders first, then files, by name; hidden entries
 * left out, as is anything a symlink takes outside the root; names escaped for HTML and percent-encoded in links.
 * At most {@value #MAX_ENTRIES} entries are shown.
 */
final class FolderListing {
    static final int MAX_ENTRIES = 10_000;
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
            .withZone(ZoneOffset.UTC);

    private record Entry(String name, boolean folder, long size, long modified) {
    }

    private FolderListing() {
    }

    /** The page for {@code folder}, shown as {@code urlPath} (ending with /). */
    static byte[] page(Path folder, Path realRoot, String urlPath) throws IOException {
        List<Entry> entries = new ArrayList<>();
        boolean more = false;
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(folder)) {
            for (Path p : stream) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                if (entries.size() == MAX_ENTRIES) {
                    more = true;
                    break;
                }
                Path real;
                BasicFileAttributes attrs;
                try {
                    real = p.toRealPath();
                    attrs = Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (IOException e) {
                    continue; // a dangling link, or gone since the listing began
                }
                if (!real.startsWith(realRoot) || !(attrs.isDirectory() || attrs.isRegularFile())) {
                    continue;
                }
                entries.add(new Entry(name, attrs.isDirectory(), attrs.size(), attrs.lastModifiedTime().toMillis()));
            }
        }
        entries.sort(Comparator.comparing((Entry e) -> !e.folder()).thenComparing(Entry::name));
        String title = escape(urlPath);
        StringBuilder html = new StringBuilder(256 + entries.size() * 120)
                .append("<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\">")
                .append("<title>").append(title).append("</title><style>body{font:15px system-ui,sans-serif;")
                .append("margin:2em}td{padding:.15em 1.5em .15em 0}td.n{text-align:right}</style>")
                .append("<h1>").append(title).append("</h1><table>");
        if (!urlPath.equals("/")) {
            html.append("<tr><td><a href=\"../\">../</a><td><td>");
        }
        for (Entry e : entries) {
            String shown = e.name() + (e.folder() ? "/" : "");
            html.append("<tr><td><a href=\"").append(escape(encode(e.name()))).append(e.folder() ? "/" : "")
                    .append("\">").append(escape(shown)).append("</a><td class=n>")
                    .append(e.folder() ? "" : Long.toString(e.size())).append("<td>")
                    .append(WHEN.format(Instant.ofEpochMilli(e.modified())));
        }
        html.append("</table>");
        if (more) {
            html.append("<p>Only the first ").append(MAX_ENTRIES).append(" entries are shown.</p>");
        }
        return html.append('\n').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A name as one path segment: unreserved characters as they are, everything else percent-encoded. */
    static String encode(String name) {
        StringBuilder out = new StringBuilder(name.length() + 8);
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~".indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
