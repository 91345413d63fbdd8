package dev.usher.it;

import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 200 MiB body goes up and comes back down through an Usher whose JVM has a 32 MiB heap and 32 MiB of direct
 * memory: it can only pass if both directions are streamed with backpressure.
 */
class LargeBodyTest {
    static final long SIZE = 200L * 1024 * 1024;

    @TempDir
    Path dir;

    @Test
    void twoHundredMebibytesBothWaysThroughASmallHeap() throws Exception {
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "big")) {
            Path config = dir.resolve("usher.yaml");
            Files.writeString(config, "listen: {http: \"127.0.0.1:0\", https: off}\nadmin: off\nsites:\n  big.example.com: 127.0.0.1:"
                    + backend.port() + "\n");
            Process usher = startSmallUsher(config);
            try {
                int port = awaitListeningPort(usher);
                String[] hashes = echo(port, SIZE);
                assertThat(hashes[1]).as("sha256 of what came back").isEqualTo(hashes[0]);
                assertThat(usher.isAlive()).isTrue();
            } finally {
                usher.destroy();
                usher.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    static Process startSmallUsher(Path config) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(java, "-Xmx32m", "-XX:MaxDirectMemorySize=32m", "-XX:+UseSerialGC",
                "-XX:+ExitOnOutOfMemoryError", "-cp", System.getProperty("java.class.path"),
                "dev.usher.Main", "run", "--config", config.toString());
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Reads the process output until Usher logs its listening address; keeps draining it afterwards. */
    static int awaitListeningPort(Process p) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Pattern listening = Pattern.compile("listening on http://[^ ]*:(\\d+) ");
        CompletableFuture<Integer> port = new CompletableFuture<>();
        StringBuilder seen = new StringBuilder();
        Thread.ofVirtual().start(() -> {
            try {
                String line;
                while ((line = reader.readLine()) != null) {
                    seen.append(line).append('\n');
                    Matcher m = listening.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
                port.completeExceptionally(new AssertionError("usher exited:\n" + seen));
            } catch (Exception e) {
                port.completeExceptionally(e);
            }
        });
        return port.get(30, TimeUnit.SECONDS);
    }

    /** Sends {@code size} random bytes to /echo while reading the answer; returns {sent sha256, received sha256}. */
    static String[] echo(int port, long size) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            CompletableFuture<String> sent = CompletableFuture.supplyAsync(() -> {
                try {
                    MessageDigest sha = MessageDigest.getInstance("SHA-256");
                    out.write(("POST /echo HTTP/1.1\r\nHost: big.example.com\r\nContent-Type: application/octet-stream\r\n"
                            + "Content-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    Random random = new Random(42);
                    byte[] chunk = new byte[64 * 1024];
                    for (long left = size; left > 0; ) {
                        random.nextBytes(chunk);
                        int n = (int) Math.min(chunk.length, left);
                        out.write(chunk, 0, n);
                        sha.update(chunk, 0, n);
                        left -= n;
                    }
                    out.flush();
                    return HexFormat.of().formatHex(sha.digest());
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, r -> Thread.ofPlatform().start(r));
            String head = WebsocketTest.readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200");
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[64 * 1024];
            long received = 0;
            while (received < size) {
                int n = in.read(buf, 0, (int) Math.min(buf.length, size - received));
                if (n < 0) {
                    break;
                }
                sha.update(buf, 0, n);
                received += n;
            }
            assertThat(received).isEqualTo(size);
            return new String[] {sent.get(60, TimeUnit.SECONDS), HexFormat.of().formatHex(sha.digest())};
        }
    }
}
