package dev.usher.testing;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real peer program run in the background for a test (socat, ncat, openssl s_server, haproxy), its output in a
 * file, stopped by its PID (and its children's) when closed. Register it with {@link Servers#track}.
 */
public final class Daemon implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final String name;

    private Daemon(Process process, Path log, String name) {
        this.process = process;
        this.log = log;
        this.name = name;
    }

    /** Starts {@code command} (its program must be installed: see {@code .ci/run}). */
    public static Daemon start(List<String> command) {
        try {
            Path log = Files.createTempFile("usher-peer-", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            process.getOutputStream().close();
            return new Daemon(process, log, String.join(" ", command));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command + ": " + e.getMessage(), e);
        }
    }

    /** A socat TCP echo server on 127.0.0.1:{@code port}: a process per connection writing back what it reads. */
    public static Daemon tcpEcho(int port) {
        return start(List.of("socat", "TCP4-LISTEN:" + port + ",bind=127.0.0.1,reuseaddr,fork,backlog=2048", "PIPE"))
                .awaitTcp(port);
    }

    /** A socat UDP echo server on 127.0.0.1:{@code port}: each datagram answered to its sender. */
    public static Daemon udpEcho(int port) {
        return start(List.of("socat", "UDP4-RECVFROM:" + port + ",bind=127.0.0.1,fork", "PIPE"))
                .awaitAlive(Duration.ofMillis(300));
    }

    /** Waits until something accepts TCP connections on 127.0.0.1:{@code port} (up to 10 s). */
    public Daemon awaitTcp(int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited: " + output());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return this;
            } catch (IOException e) {
                sleep(Duration.ofMillis(50));
            }
        }
        throw new AssertionError(name + " does not listen on " + port + ": " + output());
    }

    /** Waits until the output contains {@code text} (up to 10 s). */
    public Daemon awaitOutput(String text) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (output().contains(text)) {
                return this;
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited: " + output());
            }
            sleep(Duration.ofMillis(50));
        }
        throw new AssertionError(name + " never printed \"" + text + "\": " + output());
    }

    /** Waits a moment for a UDP peer to have bound (nothing to connect to). */
    public Daemon awaitAlive(Duration settle) {
        sleep(settle);
        if (!process.isAlive()) {
            throw new AssertionError(name + " exited: " + output());
        }
        return this;
    }

    /** What it printed so far. */
    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws IOException {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(log);
    }

    /**
     * A TCP port free on 127.0.0.1 now, below Linux's ephemeral range (32768-60999), each handed out once per test
     * JVM. A port the system picks for bind(0) is one it may also give to the next outgoing connection as its source
     * port, and the server a test starts on it a moment later then finds it taken (seen in a CI run of
     * StreamsTcpTest); ports below that range are never taken that way.
     */
    public static int freeTcpPort() {
        for (int tries = 0; tries < FIXED_PORTS; tries++) {
            int port = FIRST_FIXED_PORT + Math.floorMod(NEXT_PORT.getAndIncrement(), FIXED_PORTS);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException taken) {
                // in use by another test or process: the next one
            }
        }
        throw new IllegalStateException("no free TCP port in " + FIRST_FIXED_PORT + "-"
                + (FIRST_FIXED_PORT + FIXED_PORTS - 1));
    }

    private static final int FIRST_FIXED_PORT = 20000;
    private static final int FIXED_PORTS = 12000;
    /** Where the next pick starts: a random place, so that two test JVMs at once rarely pick alike. */
    private static final java.util.concurrent.atomic.AtomicInteger NEXT_PORT =
            new java.util.concurrent.atomic.AtomicInteger(new java.util.Random().nextInt(FIXED_PORTS));

    /** A UDP port free on 127.0.0.1 now. */
    public static int freeUdpPort() {
        try (DatagramSocket s = new DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
