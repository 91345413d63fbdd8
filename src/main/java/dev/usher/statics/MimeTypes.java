package dev.usher.statics;

import java.util.Locale;
import java.util.Map;

/**
 * The Content-Type of a file by its extension, for the formats a web site is made of; anything else is
 * {@code application/octet-stream}. Text types carry {@code charset=utf-8}. Also says whether a type is worth
 * compressing on the fly (text, scripts, JSON, SVG, WebAssembly): the same kinds the response compressor takes.
 */
final class MimeTypes {
    static final String DEFAULT = "application/octet-stream";

    /** A type and whether it compresses well. */
    record Type(String contentType, boolean compressible) {
    }

    private static final Map<String, Type> BY_EXTENSION = Map.ofEntries(
            text("html", "text/html"), text("htm", "text/html"), text("css", "text/css"),
            text("js", "text/javascript"), text("mjs", "text/javascript"), text("txt", "text/plain"),
            text("md", "text/markdown"), text("csv", "text/csv"), text("xml", "text/xml"),
            text("ics", "text/calendar"), text("vtt", "text/vtt"),
            compressible("json", "application/json"), compressible("map", "application/json"),
            compressible("webmanifest", "application/manifest+json"), compressible("jsonld", "application/ld+json"),
            compressible("wasm", "application/wasm"), compressible("svg", "image/svg+xml"),
            compressible("rss", "application/rss+xml"), compressible("atom", "application/atom+xml"),
            compressible("ttf", "font/ttf"), compressible("otf", "font/otf"),
            compressible("ico", "image/vnd.microsoft.icon"),
            binary("woff", "font/woff"), binary("woff2", "font/woff2"),
            binary("png", "image/png"), binary("jpg", "image/jpeg"), binary("jpeg", "image/jpeg"),
            binary("gif", "image/gif"), binary("webp", "image/webp"), binary("avif", "image/avif"),
            binary("bmp", "image/bmp"),
            binary("mp4", "video/mp4"), binary("webm", "video/webm"), binary("ogv", "video/ogg"),
            binary("mp3", "audio/mpeg"), binary("ogg", "audio/ogg"), binary("oga", "audio/ogg"),
            binary("wav", "audio/wav"), binary("flac", "audio/flac"), binary("m4a", "audio/mp4"),
            binary("pdf", "application/pdf"), binary("zip", "application/zip"), binary("gz", "application/gzip"),
            binary("tgz", "application/gzip"), binary("zst", "application/zstd"), binary("xz", "application/x-xz"),
            binary("tar", "application/x-tar"), binary("7z", "application/x-7z-compressed"),
            binary("iso", "application/x-iso9660-image"), binary("deb", "application/vnd.debian.binary-package"),
            binary("epub", "application/epub+zip"), binary("apk", "application/vnd.android.package-archive"));

    private MimeTypes() {
    }

    /** The type of a file named {@code fileName}. */
    static Type of(String fileName) {
        int dot = fileName.lastIndexOf('.');
        if (dot < 0 || dot == fileName.length() - 1) {
            return new Type(DEFAULT, false);
        }
        Type type = BY_EXTENSION.get(fileName.substring(dot + 1).toLowerCase(Locale.ROOT));
        return type != null ? type : new Type(DEFAULT, false);
    }

    private static Map.Entry<String, Type> text(String extension, String type) {
        return Map.entry(extension, new Type(type + "; charset=utf-8", true));
    }

    private static Map.Entry<String, Type> compressible(String extension, String type) {
        return Map.entry(extension, new Type(type, true));
    }

    private static Map.Entry<String, Type> binary(String extension, String type) {
        return Map.entry(extension, new Type(type, false));
    }
}
