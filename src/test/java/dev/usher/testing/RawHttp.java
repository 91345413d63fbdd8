package dev.usher.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately simple HTTP/1.1 client on a raw socket, for requests that well-behaved clients refuse to send
 * (smuggling shapes, obs-fold, pipelining, HTTP/1.0) and for reading exactly what came back.
 */
public final class RawHttp implements AutoCloseable {
    public final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    public RawHttp send(String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads one response (Content-Length, chunked, or until close when neither). */
    public Response read() throws IOException {
        String statusLine = line();
        if (statusLine == null) {
            return null;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        String line;
        while ((line = line()) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            headers.merge(name, value, (a, b) -> a + ", " + b);
        }
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        boolean noBody = status / 100 == 1 || status == 204 || status == 304 || headOnly;
        if (!noBody) {
            if (headers.containsKey("content-length")) {
                body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                while (true) {
                    int size = Integer.parseInt(line().split(";")[0].trim(), 16);
                    if (size == 0) {
                        while ((line = line()) != null && !line.isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    body.write(in.readNBytes(size));
                    line();
                }
            } else {
                body.write(in.readAllBytes());
            }
        }
        headOnly = false;
        return new Response(statusLine, status, headers, body.toString(StandardCharsets.ISO_8859_1));
    }

    private boolean headOnly;

    /** The next response answers a HEAD request: it has no body whatever its headers say. */
    public RawHttp expectHeadResponse() {
        headOnly = true;
        return this;
    }

    /** True when the server closed the connection (reads EOF) within the socket timeout. */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\n') {
                byte[] b = buf.toByteArray();
                int len = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
                return new String(b, 0, len, StandardCharsets.ISO_8859_1);
            }
            buf.write(c);
        }
        return buf.size() == 0 ? null : buf.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    public record Response(String statusLine, int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }
}
