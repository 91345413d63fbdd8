package dev.usher.docker;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * HTTP/1.1 GET requests to the Docker Engine API over its unix socket, with the JDK's own unix-domain socket
 * channels: blocking, on the discovery's own threads, never on an event loop. Each request is one connection
 * ({@code Connection: close}). Only reads are ever asked for, so a read-only socket proxy in between is enough.
 */
final class DockerSocket {
    /** The largest response body read whole: the container list of a busy host is well under this. */
    static final int MAX_BODY = 32 << 20;

    /** A whole response. */
    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The API's own error message ({@code {"message": "..."}}), or the body. */
        String message() {
            String text = text().strip();
            try {
                if (dev.usher.json.JsonReader.parse(text) instanceof java.util.Map<?, ?> map
                        && map.get("message") instanceof String m) {
                    return m;
                }
            } catch (dev.usher.json.JsonReader.BadJson e) {
                // not JSON: the text as it is
            }
            return text.length() > 200 ? text.substring(0, 200) + "..." : text;
        }
    }

    /** A response whose body is read line by line as it comes ({@code /events}); close it to stop. */
    static final class Stream implements AutoCloseable {
        private final SocketChannel channel;
        private final BufferedReader lines;

        private Stream(SocketChannel channel, InputStream body) {
            this.channel = channel;
            this.lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
        }

        /** The next line, waiting for it; null at the end of the response. A {@link #close} ends the wait. */
        String nextLine() throws IOException {
            return lines.readLine();
        }

        @Override
        public void close() {
            closeQuietly(channel);
        }
    }

    private final Path path;

    DockerSocket(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    /** GETs {@code target} and reads the whole response; gives up (closing the connection) after {@code timeout}. */
    Response get(String target, Duration timeout) throws IOException {
        SocketChannel channel = connect();
        try (Watchdog ignored = Watchdog.closeAfter(channel, timeout)) {
            InputStream in = request(channel, target, "close");
            HttpResponseReader.Head head = HttpResponseReader.head(in);
            return new Response(head.status(), HttpResponseReader.readAll(HttpResponseReader.body(head, in),
                    MAX_BODY));
        } catch (IOException e) {
            throw timedOut(e, channel, timeout);
        } finally {
            closeQuietly(channel);
        }
    }

    /**
     * GETs {@code target} and returns its body as a stream of lines once the head has come (within
     * {@code timeout}); a status other than 200 is an {@link ApiException}.
     */
    Stream stream(String target, Duration timeout) throws IOException {
        SocketChannel channel = connect();
        try {
            HttpResponseReader.Head head;
            InputStream in;
            try (Watchdog ignored = Watchdog.closeAfter(channel, timeout)) {
                in = request(channel, target, "close");
                head = HttpResponseReader.head(in);
            }
            if (!channel.isOpen()) {
                throw new IOException("no answer within " + timeout.toMillis() + " ms");
            }
            if (head.status() != 200) {
                Response answer = new Response(head.status(), HttpResponseReader.readAll(
                        HttpResponseReader.body(head, in), 64 * 1024));
                throw new ApiException(target, answer);
            }
            return new Stream(channel, HttpResponseReader.body(head, in));
        } catch (IOException e) {
            IOException reported = timedOut(e, channel, timeout);
            closeQuietly(channel);
            throw reported;
        } catch (RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private SocketChannel connect() throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(path));
            return channel;
        } catch (IOException e) {
            closeQuietly(channel);
            throw new IOException("cannot connect to " + path + ": " + e.getMessage(), e);
        }
    }

    private static InputStream request(SocketChannel channel, String target, String connection) throws IOException {
        String request = "GET " + target + " HTTP/1.1\r\nHost: docker\r\nUser-Agent: usher\r\n"
                + "Accept: application/json\r\nConnection: " + connection + "\r\n\r\n";
        ByteBuffer bytes = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        while (bytes.hasRemaining()) {
            channel.write(bytes);
        }
        return new BufferedInputStream(Channels.newInputStream(channel), 16 * 1024);
    }

    /** The error to report: "no answer within" when the watchdog closed the connection. */
    private static IOException timedOut(IOException e, SocketChannel channel, Duration timeout) {
        if (e instanceof ApiException || channel.isOpen()) {
            return e;
        }
        return new IOException("no answer within " + timeout.toMillis() + " ms", e);
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }

    /** An answer other than 200 from the API. */
    static final class ApiException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;

        ApiException(String target, Response answer) {
            super("GET " + target + ": " + answer.status() + " " + answer.message());
            this.status = answer.status();
        }

        int status() {
            return status;
        }
    }

    /** Closes a channel when a request takes too long: that ends a blocked read. A virtual thread that sleeps. */
    private static final class Watchdog implements AutoCloseable {
        private final Thread sleeper;

        private Watchdog(Thread sleeper) {
            this.sleeper = sleeper;
        }

        static Watchdog closeAfter(SocketChannel channel, Duration timeout) {
            return new Watchdog(Thread.ofVirtual().name("docker-request-deadline").start(() -> {
                try {
                    Thread.sleep(timeout);
                    closeQuietly(channel);
                } catch (InterruptedException e) {
                    // the request finished in time
                }
            }));
        }

        @Override
        public void close() {
            sleeper.interrupt();
        }
    }
}
