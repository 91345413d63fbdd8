package dev.usher.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A backend that answers every request with a chunked body followed by a trailer ({@code x-checksum: c0ffee}),
 * which whoami cannot do. One thread per connection, keep-alive, requests without bodies only.
 */
final class TrailerBackend implements AutoCloseable {
    private static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n"
            + "transfer-encoding: chunked\r\ntrailer: x-checksum\r\n\r\n"
            + "f\r\nhello trailers\n\r\n0\r\nx-checksum: c0ffee\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;

    private TrailerBackend(ServerSocket server) {
        this.server = server;
    }

    static TrailerBackend start() throws IOException {
        TrailerBackend backend = new TrailerBackend(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
        Thread.ofVirtual().start(backend::accept);
        return backend;
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> serve(s));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            int matched = 0;
            for (int b; (b = in.read()) >= 0; ) {
                // the end of a request head: \r\n\r\n
                matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                        ? matched + 1 : (b == '\r' ? 1 : 0);
                if (matched == 4) {
                    out.write(RESPONSE);
                    out.flush();
                    matched = 0;
                }
            }
        } catch (IOException ignored) {
            // the proxy closed the connection
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
