package dev.usher.statics;

import dev.usher.config.StaticRoot;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A folder served as a web site ({@code root:}), compiled once per config: turns a GET or HEAD into a {@link Reply}.
 * What it refuses: anything outside the root (the path is checked by {@link RequestPath}, and every file's real path,
 * symlinks followed, must still be under the root's), hidden files ({@code .git}, {@code .env}), and other methods
 * (405). A folder asked without its slash is redirected to it; with it, its index file is served, else a listing
 * when {@code browse} is on, else 404 (or the single-page app's file, as for any path that names nothing).
 *
 * <p>Threading: stateless after construction; called on event loops. The file system calls (a real path, the
 * attributes, an open) are short and not cached: a file replaced on disk is served new at once.
 */
public final class StaticFiles {
    private static final String ALLOW = "GET, HEAD, OPTIONS";
    /** Bodies shorter than this go as they are: the compressor would leave them too. */
    private static final int MIN_COMPRESSED = 1024;

    private final StaticRoot settings;
    private final Path realRoot;

    public StaticFiles(StaticRoot settings) {
        this.settings = settings;
        Path real;
        try {
            real = settings.root().toRealPath();
        } catch (IOException e) {
            real = settings.root(); // gone since the config was read: every lookup misses, with 404s
        }
        this.realRoot = real;
    }

    /**
     * The reply to {@code request}.
     *
     * @param compressAllowed the site lets responses be compressed ({@code gzip:}), which decides whether a text
     *                        file may be compressed on the fly
     */
    public Reply answer(HttpRequest request, boolean compressAllowed) {
        HttpMethod method = request.method();
        boolean head = method.equals(HttpMethod.HEAD);
        if (method.equals(HttpMethod.OPTIONS)) {
            FullHttpResponse options = full(HttpResponseStatus.NO_CONTENT, new byte[0]);
            options.headers().set(HttpHeaderNames.ALLOW, ALLOW).remove(HttpHeaderNames.CONTENT_LENGTH);
            return new Reply.Answer(options);
        }
        if (!head && !method.equals(HttpMethod.GET)) {
            return new Reply.Refusal(HttpResponseStatus.METHOD_NOT_ALLOWED, ALLOW, null);
        }
        RequestPath path;
        try {
            path = RequestPath.parse(request.uri());
        } catch (RequestPath.Refused e) {
            return refusal(HttpResponseStatus.BAD_REQUEST);
        }
        if (path.hidden()) {
            return refusal(HttpResponseStatus.NOT_FOUND);
        }
        Found found = find(path);
        if (found == null || found.kind == Kind.MISSING) {
            Found spa = spa();
            if (spa == null) {
                return refusal(HttpResponseStatus.NOT_FOUND);
            }
            found = spa;
        }
        try {
            return switch (found.kind) {
                case FOLDER_WITHOUT_SLASH -> redirectToFolder(path, request.uri());
                case LISTING -> listing(found.path, path, head);
                case FILE -> file(found, request, head, compressAllowed);
                case MISSING -> refusal(HttpResponseStatus.NOT_FOUND);
            };
        } catch (IOException e) {
            // Gone or unreadable between the lookup and now.
            return refusal(HttpResponseStatus.NOT_FOUND);
        }
    }

    private enum Kind { FILE, FOLDER_WITHOUT_SLASH, LISTING, MISSING }

    /** What a path names: its real path and attributes. */
    private record Found(Kind kind, Path path, BasicFileAttributes attrs) {
    }

    private static final Found MISSING = new Found(Kind.MISSING, null, null);

    /** The file or folder a path names, or {@link #MISSING}; null when it is refused (a link out of the root). */
    private Found find(RequestPath path) {
        Path p = realRoot;
        try {
            for (String segment : path.segments()) {
                p = p.resolve(segment);
            }
        } catch (InvalidPathException e) {
            return MISSING;
        }
        Found target = inside(p);
        if (target == null || target.kind == Kind.MISSING) {
            return target;
        }
        if (!target.attrs.isDirectory()) {
            // "/a.txt/" asks for a folder: a file is not one.
            return path.trailingSlash() && !path.segments().isEmpty() ? MISSING : target;
        }
        if (!path.trailingSlash() && !path.segments().isEmpty()) {
            return new Found(Kind.FOLDER_WITHOUT_SLASH, target.path, target.attrs);
        }
        for (String index : settings.index()) {
            Found file = inside(target.path.resolve(index));
            if (file != null && file.kind == Kind.FILE) {
                return file;
            }
        }
        return settings.browse() ? new Found(Kind.LISTING, target.path, target.attrs) : MISSING;
    }

    /**
     * The real path of {@code p} (symlinks followed) when it is still under the real root and is a regular file or
     * a folder; {@link #MISSING} when it does not exist; null when it leads out of the root.
     */
    private Found inside(Path p) {
        Path real;
        BasicFileAttributes attrs;
        try {
            real = p.toRealPath();
            attrs = Files.readAttributes(real, BasicFileAttributes.class);
        } catch (IOException | SecurityException e) {
            return MISSING;
        }
        if (!real.startsWith(realRoot)) {
            return null;
        }
        if (attrs.isDirectory()) {
            return new Found(Kind.FOLDER_WITHOUT_SLASH, real, attrs); // the kind is the caller's to settle
        }
        return attrs.isRegularFile() ? new Found(Kind.FILE, real, attrs) : MISSING;
    }

    private Found spa() {
        if (settings.spa() == null) {
            return null;
        }
        Found file = inside(realRoot.resolve(settings.spa()));
        return file != null && file.kind == Kind.FILE ? file : null;
    }

    /** 308 to the folder's URL with its slash, built from the checked segments (never an open redirect). */
    private static Reply redirectToFolder(RequestPath path, String uri) {
        StringBuilder location = new StringBuilder();
        for (String segment : path.segments()) {
            location.append('/').append(FolderListing.encode(segment));
        }
        location.append('/');
        int query = uri.indexOf('?');
        if (query >= 0) {
            location.append(uri, query, uri.length());
        }
        FullHttpResponse redirect = full(HttpResponseStatus.PERMANENT_REDIRECT, new byte[0]);
        redirect.headers().set(HttpHeaderNames.LOCATION, location.toString());
        return new Reply.Answer(redirect);
    }

    private Reply listing(Path folder, RequestPath path, boolean head) throws IOException {
        StringBuilder shown = new StringBuilder("/");
        for (String segment : path.segments()) {
            shown.append(segment).append('/');
        }
        byte[] page = FolderListing.page(folder, realRoot, shown.toString());
        FullHttpResponse response = full(HttpResponseStatus.OK, head ? new byte[0] : page);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                .set(HttpHeaderNames.CONTENT_LENGTH, page.length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        return new Reply.Answer(response);
    }

    private Reply file(Found found, HttpRequest request, boolean head, boolean compressAllowed) throws IOException {
        HttpHeaders asked = request.headers();
        MimeTypes.Type type = MimeTypes.of(found.path.getFileName().toString());
        String rangeHeader = head ? null : asked.get(HttpHeaderNames.RANGE);
        Variant variant = rangeHeader == null && settings.precompressed()
                ? precompressed(found.path, asked.get(HttpHeaderNames.ACCEPT_ENCODING)) : null;
        Path file = variant == null ? found.path : variant.path;
        long size = variant == null ? found.attrs.size() : variant.size;
        Validators validators = Validators.of(size, found.attrs.lastModifiedTime().toMillis(),
                variant == null ? null : variant.coding);
        HttpHeaders common = new io.netty.handler.codec.http.DefaultHttpHeaders()
                .set(HttpHeaderNames.ETAG, validators.etag())
                .set(HttpHeaderNames.LAST_MODIFIED, validators.lastModified());
        if (variant != null || settings.precompressed() && type.compressible()) {
            common.set(HttpHeaderNames.VARY, "Accept-Encoding");
        }
        switch (validators.check(asked)) {
            case NOT_MODIFIED -> {
                FullHttpResponse notModified = full(HttpResponseStatus.NOT_MODIFIED, new byte[0]);
                notModified.headers().remove(HttpHeaderNames.CONTENT_LENGTH).add(common);
                return new Reply.Answer(notModified);
            }
            case FAILED -> {
                return refusal(HttpResponseStatus.PRECONDITION_FAILED);
            }
            case SERVE -> { }
        }
        ByteRanges.Result ranges = rangeHeader != null && validators.rangeAllowed(asked)
                ? ByteRanges.parse(rangeHeader, size) : ByteRanges.Result.WHOLE;
        if (ranges.unsatisfiable()) {
            return new Reply.Refusal(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE, null, "bytes */" + size);
        }
        common.set(HttpHeaderNames.CONTENT_TYPE, type.contentType())
                .set(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES);
        if (variant != null) {
            common.set(HttpHeaderNames.CONTENT_ENCODING, variant.coding.equals("gz") ? "gzip" : "zstd");
        }
        if (head || size == 0) {
            FullHttpResponse answer = full(HttpResponseStatus.OK, new byte[0]);
            answer.headers().add(common).set(HttpHeaderNames.CONTENT_LENGTH, size);
            return new Reply.Answer(answer);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
        if (ranges.ranges() == null) {
            HttpResponse whole = head(HttpResponseStatus.OK, common, size);
            boolean compressible = variant == null && type.compressible() && compressAllowed
                    && size >= MIN_COMPRESSED && acceptsAny(asked.get(HttpHeaderNames.ACCEPT_ENCODING));
            return new Reply.Transfer(whole, channel, List.of(new Reply.Part(new byte[0], 0, size)), new byte[0],
                    compressible);
        }
        if (ranges.ranges().size() == 1) {
            ByteRanges.Range r = ranges.ranges().get(0);
            common.set(HttpHeaderNames.CONTENT_RANGE, "bytes " + r.first() + "-" + r.last() + "/" + size);
            return new Reply.Transfer(head(HttpResponseStatus.PARTIAL_CONTENT, common, r.length()), channel,
                    List.of(new Reply.Part(new byte[0], r.first(), r.length())), new byte[0], false);
        }
        return multipart(channel, common, ranges.ranges(), size, type.contentType());
    }

    /** 206 with {@code multipart/byteranges}: each range after its boundary and headers. */
    private static Reply multipart(FileChannel channel, HttpHeaders common, List<ByteRanges.Range> ranges, long size,
                                   String contentType) {
        String boundary = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        List<Reply.Part> parts = new ArrayList<>(ranges.size());
        long length = 0;
        for (ByteRanges.Range r : ranges) {
            byte[] prefix = ("\r\n--" + boundary + "\r\nContent-Type: " + contentType + "\r\nContent-Range: bytes "
                    + r.first() + "-" + r.last() + "/" + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            parts.add(new Reply.Part(prefix, r.first(), r.length()));
            length += prefix.length + r.length();
        }
        byte[] trailer = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
        length += trailer.length;
        common.set(HttpHeaderNames.CONTENT_TYPE, "multipart/byteranges; boundary=" + boundary);
        return new Reply.Transfer(head(HttpResponseStatus.PARTIAL_CONTENT, common, length), channel, parts, trailer,
                false);
    }

    /** A precompressed sibling to send instead. */
    private record Variant(Path path, long size, String coding) {
    }

    /** {@code name.zst} for a client that takes zstd, else {@code name.gz} for one that takes gzip; or null. */
    private Variant precompressed(Path file, String acceptEncoding) {
        if (acceptEncoding == null) {
            return null;
        }
        for (String coding : List.of("zst", "gz")) {
            if (!accepts(acceptEncoding, coding.equals("gz") ? "gzip" : "zstd")) {
                continue;
            }
            Found sibling = inside(file.resolveSibling(file.getFileName() + "." + coding));
            if (sibling != null && sibling.kind == Kind.FILE) {
                return new Variant(sibling.path, sibling.attrs.size(), coding);
            }
        }
        return null;
    }

    /** True when {@code Accept-Encoding} takes {@code coding} (named, or by {@code *}, with a weight above 0). */
    static boolean accepts(String acceptEncoding, String coding) {
        boolean byStar = false;
        for (String entry : acceptEncoding.split(",")) {
            String[] parts = entry.split(";");
            String name = parts[0].strip().toLowerCase(Locale.ROOT);
            boolean refused = false;
            for (int i = 1; i < parts.length; i++) {
                String param = parts[i].strip().toLowerCase(Locale.ROOT);
                if (param.startsWith("q=")) {
                    refused = param.substring(2).strip().matches("0(\\.0{0,3})?");
                }
            }
            if (name.equals(coding) || coding.equals("gzip") && name.equals("x-gzip")) {
                return !refused;
            }
            if (name.equals("*")) {
                byStar = !refused;
            }
        }
        return byStar;
    }

    private static boolean acceptsAny(String acceptEncoding) {
        return acceptEncoding != null && (accepts(acceptEncoding, "gzip") || accepts(acceptEncoding, "zstd"));
    }

    private static Reply.Refusal refusal(HttpResponseStatus status) {
        return new Reply.Refusal(status, null, null);
    }

    private static HttpResponse head(HttpResponseStatus status, HttpHeaders headers, long length) {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        response.headers().add(headers).set(HttpHeaderNames.CONTENT_LENGTH, length);
        return response;
    }

    private static FullHttpResponse full(HttpResponseStatus status, byte[] body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return response;
    }
}
