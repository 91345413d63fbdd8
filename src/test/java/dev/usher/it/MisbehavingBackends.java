package dev.usher.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Raw-socket backends that break in the ways real ones do, for tests under load. Each closes every socket it holds
 * when closed, so what stays open afterwards is Usher's.
 */
final class MisbehavingBackends {
    private MisbehavingBackends() {
    }

    /** The common part: a loopback listener and an accept loop on a virtual thread, one per connection. */
    abstract static class Backend implements AutoCloseable {
        final Set<Socket> open = ConcurrentHashMap.newKeySet();
        volatile ServerSocket server;
        private final int port;

        Backend() throws IOException {
            this(0);
        }

        Backend(int port) throws IOException {
            server = listen(port);
            this.port = server.getLocalPort();
            acceptOn(server);
        }

        static ServerSocket listen(int port) throws IOException {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
            return s;
        }

        final void acceptOn(ServerSocket listening) {
            Thread.ofVirtual().start(() -> {
                while (!listening.isClosed()) {
                    try {
                        Socket s = listening.accept();
                        open.add(s);
                        Thread.ofVirtual().start(() -> {
                            try (s) {
                                serve(s);
                            } catch (IOException e) {
                                // the peer left, or we were closed
                            } finally {
                                open.remove(s);
                            }
                        });
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        /** Handles one connection; returning closes it. */
        abstract void serve(Socket s) throws IOException;

        int port() {
            return port;
        }

        void closeConnections() {
            for (Socket s : open) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            closeConnections();
        }
    }

    /** Reads the request head up to its blank line; false at the end of the stream. */
    static boolean readHead(InputStream in) throws IOException {
        int state = 0;
        int b;
        while ((b = in.read()) >= 0) {
            state = switch (state) {
                case 0 -> b == '\r' ? 1 : 0;
                case 1 -> b == '\n' ? 2 : 0;
                case 2 -> b == '\r' ? 3 : 0;
                default -> b == '\n' ? 4 : 0;
            };
            if (state == 4) {
                return true;
            }
        }
        return false;
    }

    /** Accepts, reads what comes, never answers (a deadlocked app). Closes when the peer does. */
    static final class Silent extends Backend {
        Silent() throws IOException {
        }

        @Override
        void serve(Socket s) throws IOException {
            InputStream in = s.getInputStream();
            byte[] sink = new byte[4096];
            while (in.read(sink) >= 0) {
                // never answer
            }
        }
    }

    /** Answers with a head announcing 10,000 bytes, sends half of them and resets the connection. */
    static final class HalfThenReset extends Backend {
        static final int DECLARED = 10_000;

        HalfThenReset() throws IOException {
        }

        @Override
        void serve(Socket s) throws IOException {
            if (!readHead(s.getInputStream())) {
                return;
            }
            OutputStream out = s.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + DECLARED + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[DECLARED / 2]);
            out.flush();
            s.setSoLinger(true, 0); // close() now sends RST
        }
    }

    /**
     * Up for a second, down for a second, on the same port: up, it answers every request "ok" on keep-alive
     * connections; going down it closes its listener and every connection.
     */
    static final class Flapping extends Backend {
        private final Thread flapper;
        private volatile boolean stopped;

        Flapping() throws IOException {
            flapper = Thread.ofVirtual().start(this::flap);
        }

        private void flap() {
            try {
                while (!stopped) {
                    Thread.sleep(1_000);
                    server.close();
                    closeConnections();
                    Thread.sleep(1_000);
                    if (stopped) {
                        return;
                    }
                    ServerSocket again = listen(port());
                    server = again;
                    acceptOn(again);
                }
            } catch (IOException | InterruptedException e) {
                // stopped
            }
        }

        @Override
        void serve(Socket s) throws IOException {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (readHead(in)) {
                out.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            stopped = true;
            flapper.interrupt();
            try {
                flapper.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            super.close();
        }
    }

    /** This process's open descriptors. */
    static long openDescriptors() throws IOException {
        try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** Whether {@code e} is what a reset or closed connection looks like to a client. */
    static boolean isConnectionEnd(Exception e) {
        return e instanceof SocketException || e instanceof java.io.EOFException
                || e instanceof IOException && String.valueOf(e.getMessage()).contains("closed");
    }
}
