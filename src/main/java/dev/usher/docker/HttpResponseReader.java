package dev.usher.docker;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads an HTTP/1.1 response from a stream: the status line and headers, then the body as the headers frame it
 * (chunked, a Content-Length, or up to the end of the connection). Just what the Docker Engine API sends; bounded, so
 * a confused peer cannot make Usher hold more than {@link #MAX_HEAD} of head.
 */
final class HttpResponseReader {
    /** The largest response head accepted. */
    static final int MAX_HEAD = 64 * 1024;

    /** A response's status and headers (names lower-case; a repeated header keeps its last value). */
    record Head(int status, String reason, Map<String, String> headers) {
    }

    private HttpResponseReader() {
    }

    /** Reads the head; the stream is then at the first byte of the body. */
    static Head head(InputStream in) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || !parts[1].matches("[0-9]{3}")) {
            throw new IOException("not an HTTP/1.1 response: \"" + shorten(statusLine) + "\"");
        }
        Map<String, String> headers = new HashMap<>();
        int size = statusLine.length();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            size += line.length();
            if (size > MAX_HEAD) {
                throw new IOException("the response head is over " + MAX_HEAD + " bytes");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed response header: \"" + shorten(line) + "\"");
            }
            headers.put(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip());
        }
        return new Head(Integer.parseInt(parts[1]), parts.length > 2 ? parts[2] : "", Map.copyOf(headers));
    }

    /** The body that follows {@code head} on {@code in}, framed as the head says; closing it leaves {@code in} open. */
    static InputStream body(Head head, InputStream in) throws IOException {
        String encoding = head.headers().getOrDefault("transfer-encoding", "");
        if (encoding.equalsIgnoreCase("chunked")) {
            return new ChunkedBody(in);
        }
        if (!encoding.isEmpty()) {
            throw new IOException("unsupported transfer encoding " + encoding);
        }
        String length = head.headers().get("content-length");
        if (length != null) {
            try {
                return new LimitedBody(in, Long.parseLong(length));
            } catch (NumberFormatException e) {
                throw new IOException("bad Content-Length " + length);
            }
        }
        return in; // up to the end of the connection
    }

    /** Reads a whole body of at most {@code max} bytes. */
    static byte[] readAll(InputStream body, int max) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n = body.read(buffer); n >= 0; n = body.read(buffer)) {
            if (out.size() + n > max) {
                throw new IOException("the response body is over " + max + " bytes");
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** One CRLF- (or LF-) terminated line of the head, without its terminator. */
    static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the connection closed in the middle of a response head");
            }
            if (b == '\n') {
                break;
            }
            if (line.size() >= MAX_HEAD) {
                throw new IOException("a response head line is over " + MAX_HEAD + " bytes");
            }
            line.write(b);
        }
        String text = line.toString(StandardCharsets.ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    }

    private static String shorten(String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }

    /** A body read through {@code read(byte[], int, int)}, which the subclasses frame; byte reads go through it. */
    private abstract static class FramedBody extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }
    }

    /** A body of a known length. */
    private static final class LimitedBody extends FramedBody {
        private final InputStream in;
        private long left;

        LimitedBody(InputStream in, long length) {
            this.in = in;
            this.left = length;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new EOFException("the connection closed " + left + " bytes before the end of the body");
            }
            left -= n;
            return n;
        }
    }

    /** A chunked body: the chunks' data, up to the last (empty) chunk and its trailers. */
    private static final class ChunkedBody extends FramedBody {
        private final InputStream in;
        private long left;
        private boolean done;

        ChunkedBody(InputStream in) {
            this.in = in;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (done) {
                return -1;
            }
            if (left == 0) {
                left = nextChunkSize();
                if (left == 0) {
                    while (!line(in).isEmpty()) {
                        // trailers: none that matter here
                    }
                    done = true;
                    return -1;
                }
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new EOFException("the connection closed in the middle of a chunk");
            }
            left -= n;
            if (left == 0 && !line(in).isEmpty()) {
                throw new IOException("a chunk does not end with CRLF");
            }
            return n;
        }

        private long nextChunkSize() throws IOException {
            String line = line(in);
            int semicolon = line.indexOf(';');
            String hex = (semicolon < 0 ? line : line.substring(0, semicolon)).strip();
            try {
                long size = Long.parseLong(hex, 16);
                if (size < 0) {
                    throw new NumberFormatException();
                }
                return size;
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size \"" + shorten(line) + "\"");
            }
        }
    }
}
