package dev.usher;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import dev.usher.whoami.Whoami;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * {@code usher train}: a short, self-contained run of the usual request path (an in-process Usher in front of an
 * in-process whoami, on loopback ports the kernel picks), for the launcher to record an AOT cache from
 * ({@code -XX:AOTCacheOutput}). The classes it loads and links are the ones a real start-up needs, so the next
 * start skips that work.
 */
final class Training {
    private static final int REQUESTS = 3_000;

    private Training() {
    }

    static int run() throws Exception {
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "training")) {
            String yaml = """
                    listen: {http: "127.0.0.1:0", https: off}
                    admin: off
                    sites:
                      plain.localhost: 127.0.0.1:%1$d
                      "*.localhost": {to: 127.0.0.1:%1$d, headers: {X-Trained: "yes"}, rate_limit: {requests: 100000, per: 1s}}
                    """.formatted(backend.port());
            UsherConfig config = ConfigLoader.parse(yaml, "<training>");
            Usher usher = Usher.start(config, 1);
            try {
                int port = usher.httpAddress().getPort();
                exercise(port, "plain.localhost", "");
                exercise(port, "app.localhost", "Accept-Encoding: gzip\r\n");
                notFound(port);
            } finally {
                usher.close();
            }
        }
        return 0;
    }

    /** Keep-alive requests on one connection, reading each answer by its Content-Length or chunks. */
    private static void exercise(int port, String host, String extra) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            byte[] request = ("GET /train HTTP/1.1\r\nHost: " + host + "\r\n" + extra + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < REQUESTS / 2; i++) {
                out.write(request);
                out.flush();
                readResponse(in);
            }
        }
    }

    private static void notFound(int port) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: unknown.example\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            socket.getInputStream().readAllBytes();
        }
    }

    private static void readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed during training");
            }
            head.append((char) c);
        }
        String lower = head.toString().toLowerCase(java.util.Locale.ROOT);
        int cl = lower.indexOf("content-length:");
        if (cl >= 0) {
            int end = lower.indexOf("\r\n", cl);
            in.readNBytes(Integer.parseInt(lower.substring(cl + 15, end).trim()));
            return;
        }
        // chunked
        while (true) {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new IOException("connection closed during training");
                }
                line.append((char) c);
            }
            int size = Integer.parseInt(line.toString().trim().split(";")[0], 16);
            in.readNBytes(size + 2);
            if (size == 0) {
                return;
            }
        }
    }
}
