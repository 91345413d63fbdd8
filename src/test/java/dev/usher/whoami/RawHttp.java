package dev.usher.whoami;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Just enough HTTP/1.x for tests on a raw socket: read a response head, then its body as bytes or as a digest. */
final class RawHttp {
    private RawHttp() {
    }

    /** A response head: the status line and headers (names lower-cased). */
    record Head(String statusLine, Map<String, String> headers) {
        int status() {
            return Integer.parseInt(statusLine.split(" ")[1]);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        boolean chunked() {
            return "chunked".equalsIgnoreCase(header("transfer-encoding"));
        }
    }

    static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    static Head readHead(InputStream in) throws IOException {
        String statusLine = readLine(in);
        if (statusLine == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        return new Head(statusLine, headers);
    }

    /** Reads the body the head announces (Content-Length, chunked, or until EOF) into {@code sink}. */
    static long readBody(InputStream in, Head head, OutputStream sink) throws IOException {
        if (head.chunked()) {
            long total = 0;
            while (true) {
                String sizeLine = readLine(in);
                int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!readLine(in).isEmpty()) {
                        // trailers
                    }
                    return total;
                }
                copy(in, sink, size);
                total += size;
                readLine(in);
            }
        }
        String length = head.header("content-length");
        if (length != null) {
            long n = Long.parseLong(length);
            copy(in, sink, n);
            return n;
        }
        return in.transferTo(sink);
    }

    static String readBodyText(InputStream in, Head head) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        readBody(in, head, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    private static void copy(InputStream in, OutputStream sink, long n) throws IOException {
        byte[] buf = new byte[64 * 1024];
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                throw new IOException("connection closed with " + n + " body bytes missing");
            }
            sink.write(buf, 0, r);
            n -= r;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            if (c == '\n') {
                int len = line.length();
                return len > 0 && line.charAt(len - 1) == '\r' ? line.substring(0, len - 1) : line.toString();
            }
            line.append((char) c);
        }
        return line.isEmpty() ? null : line.toString();
    }

    /** An output stream that only digests what is written to it. */
    static final class DigestSink extends OutputStream {
        final MessageDigest digest = Sha256.newDigest();

        @Override
        public void write(int b) {
            digest.update((byte) b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            digest.update(b, off, len);
        }

        String hex() {
            return Sha256.hex(digest.digest());
        }
    }
}
