package dev.usher.testing;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real containers for tests: Debian's podman with its own storage under a temporary folder, and its
 * Docker-compatible API served by {@code podman system service} on a unix socket there. Images are made offline:
 * {@link #BUSYBOX} is a tarball of Debian's busybox-static imported with {@code podman import}; its containers serve
 * their own name ({@code NAME} in the environment) with busybox's httpd on port 80. Containers run with runc and
 * cgroupfs and explicit ulimits (podman's defaults, crun and systemd, fail on these machines). Networks are made with
 * names of this run's own and removed at {@link #close}, with every container.
 *
 * <p>Needs the Debian packages podman, runc and busybox-static (.ci/run installs them); a missing one fails the test.
 */
public final class Podman implements AutoCloseable {
    public static final String BUSYBOX = "localhost/usher-test-busybox:1";
    /** The container's command: write its name into a page, then serve it. */
    private static final List<String> SERVE_NAME = List.of("/bin/busybox", "sh", "-c",
            "mkdir -p /tmp/www && echo \"$NAME\" > /tmp/www/index.html && exec /bin/busybox httpd -f -p 80 "
                    + "-h /tmp/www");

    private final Path dir;
    private final Path socket;
    private final String prefix;
    private final List<String> networks = new ArrayList<>();
    private final Map<String, Boolean> containers = new ConcurrentHashMap<>();
    private Process service;

    private Podman(Path dir) {
        this.dir = dir;
        this.socket = dir.resolve("podman.sock");
        this.prefix = "usher-t" + ProcessHandle.current().pid() + "-";
    }

    /** Podman with fresh storage in {@code dir}, the busybox image imported and the API service started. */
    public static Podman start(Path dir) throws Exception {
        for (String needed : List.of("/usr/bin/podman", "/usr/sbin/runc", "/bin/busybox")) {
            if (!Files.isExecutable(Path.of(needed))) {
                throw new IllegalStateException(needed + " is missing: apt-get install -y podman runc busybox-static");
            }
        }
        Podman podman = new Podman(dir);
        podman.importBusybox();
        podman.startService();
        return podman;
    }

    /** The Docker-compatible API's socket. */
    public Path socket() {
        return socket;
    }

    /** A name unique to this test run: for containers and networks that must not meet another run's. */
    public String name(String base) {
        return prefix + base;
    }

    /** {@code podman GLOBAL-OPTIONS args...}, failing the test when it fails. */
    public String podman(String... args) {
        Command done = Command.run(120, command(args));
        if (done.exitCode() != 0) {
            throw new AssertionError(String.join(" ", args) + " failed (" + done.exitCode() + "): " + done.output());
        }
        return done.output().strip();
    }

    /** The podman command line for {@code args}, with this instance's storage and runtime options. */
    private List<String> command(String... args) {
        List<String> command = new ArrayList<>(List.of("podman", "--root", dir.resolve("root").toString(),
                "--runroot", dir.resolve("run").toString(), "--tmpdir", dir.resolve("tmp").toString(),
                "--events-backend", "file", "--cgroup-manager", "cgroupfs", "--runtime", "/usr/sbin/runc"));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * Starts a container of {@link #BUSYBOX} named {@code name} (made unique) that serves its name on port 80;
     * {@code options} are more {@code podman run} options ({@code --label}, {@code --network}, {@code --expose}).
     * Returns its unique name.
     */
    public String run(String name, String... options) {
        String unique = name(name);
        List<String> args = new ArrayList<>(List.of("run", "-d", "--name", unique, "--env", "NAME=" + name,
                "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"));
        args.addAll(List.of(options));
        args.add(BUSYBOX);
        args.addAll(SERVE_NAME);
        containers.put(unique, true);
        podman(args.toArray(String[]::new));
        return unique;
    }

    /** Stops a container at once (busybox's httpd ignores SIGTERM) and removes it. */
    public void remove(String unique) {
        podman("rm", "-f", "-t", "0", unique);
        containers.remove(unique);
    }

    /** Removes every container this instance started. */
    public void removeAll() {
        if (!containers.isEmpty()) {
            List<String> rm = new ArrayList<>(List.of("rm", "-f", "-t", "0"));
            rm.addAll(containers.keySet());
            podman(rm.toArray(String[]::new));
            containers.clear();
        }
    }

    /** Stops a container at once, keeping it. */
    public void stop(String unique) {
        podman("stop", "-t", "0", unique);
    }

    /** A bridge network of this run's own; returns its unique name. */
    public String network(String name) {
        String unique = name(name);
        podman("network", "create", unique);
        networks.add(unique);
        return unique;
    }

    /** Stops the API service (the socket goes away; containers keep running). */
    public void stopService() throws InterruptedException {
        if (service != null) {
            service.destroy();
            if (!service.waitFor(10, TimeUnit.SECONDS)) {
                service.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            service = null;
        }
    }

    /** Starts the API service on {@link #socket()} and waits until it answers. */
    public void startService() throws Exception {
        Files.deleteIfExists(socket);
        service = new ProcessBuilder(command("system", "service", "--time=0", "unix://" + socket)).redirectErrorStream(true)
                .redirectOutput(dir.resolve("service.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!answers()) {
            if (System.nanoTime() > deadline || !service.isAlive()) {
                throw new IllegalStateException("podman system service did not come up: "
                        + Files.readString(dir.resolve("service.log")));
            }
            Thread.sleep(50);
        }
    }

    private boolean answers() {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.write(java.nio.ByteBuffer.wrap("GET /_ping HTTP/1.1\r\nHost: d\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
            java.nio.ByteBuffer answer = java.nio.ByteBuffer.allocate(64);
            return channel.read(answer) > 0 && new String(answer.array(), 0, answer.position(),
                    StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200");
        } catch (IOException e) {
            return false;
        }
    }

    private void importBusybox() throws IOException {
        Path image = dir.resolve("image");
        Files.createDirectories(image.resolve("bin"));
        Files.copy(Path.of("/bin/busybox"), image.resolve("bin/busybox"));
        Path tar = dir.resolve("busybox.tar");
        Command made = Command.run(60, List.of("tar", "-C", image.toString(), "-cf", tar.toString(), "."));
        if (made.exitCode() != 0) {
            throw new IllegalStateException("tar failed: " + made.output());
        }
        podman("import", tar.toString(), BUSYBOX);
    }

    /** Removes every container and network of this run, stops the service, deletes the storage. */
    @Override
    public void close() throws Exception {
        try {
            removeAll();
        } catch (AssertionError e) {
            System.err.println("podman: " + e.getMessage());
        }
        for (String network : networks) {
            Command.run(60, command("network", "rm", "-f", network));
        }
        stopService();
        Command.run(120, command("rmi", "-a", "-f")); // not system reset: that removes every network of the machine
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
