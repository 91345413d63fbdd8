package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Running out of file descriptors, for real: {@code usher run} under {@code prlimit --nofile=256} and 400 idle
 * client connections. With {@code limits.connections} set above what the limit holds, accepts fail with EMFILE:
 * one log line with the limit and what to raise (not one stack trace per failed accept, as Netty logs them), and
 * once the clients leave, new connections are served again. Without the setting, the cap on connections comes
 * from the limit itself (said at start) and accepting never runs out.
 */
class AcceptFailuresTest {
    static final int OPEN_FILES = 256;
    static Whoami backend;
    @TempDir
    Path dir;

    @BeforeAll
    static void startBackend() {
        backend = Whoami.start("127.0.0.1", 0, "fds");
    }

    @AfterAll
    static void stopBackend() {
        backend.close();
    }

    private UsherProcess start(String limits) throws Exception {
        Path config = dir.resolve("usher.yaml");
        Files.writeString(config, """
                listen: {http: "127.0.0.1:0", https: off}
                admin: off
                %s
                sites:
                  127.0.0.1: 127.0.0.1:%d
                """.formatted(limits, backend.port()));
        return UsherProcess.start(config, dir.resolve("usher.log"),
                List.of("prlimit", "--nofile=" + OPEN_FILES + ":" + OPEN_FILES));
    }

    private static List<Socket> idleClients(int port, int count) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket();
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000); // the kernel completes it, accepted or not
            sockets.add(s);
        }
        return sockets;
    }

    private static void closeAll(List<Socket> sockets) throws Exception {
        for (Socket s : sockets) {
            s.close();
        }
    }

    /** Asks for a page until it is served (up to 15 s). */
    private static RawHttp.Response served(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try (RawHttp http = new RawHttp(port)) {
                http.socket.setSoTimeout(2_000);
                RawHttp.Response r = http.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
                if (r != null && r.status() == 200) {
                    return r;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not served again", last);
    }

    @Test
    void outOfDescriptorsIsOneLineAndAcceptingResumes() throws Exception {
        try (UsherProcess usher = start("limits: {connections: 1000}")) {
            assertThat(usher.awaitLine("limits.connections is 1000"))
                    .contains("open-file limit of " + OPEN_FILES).contains("LimitNOFILE");
            List<Socket> clients = idleClients(usher.port(), 400);
            String line = usher.awaitLine("EMFILE");
            assertThat(line).contains("limit of " + OPEN_FILES + " open files").contains("ulimit -n");
            Thread.sleep(1_500); // accepting retries every 100 ms all this time
            closeAll(clients);
            assertThat(served(usher.port()).body()).contains("fds");
            String output = usher.output();
            assertThat(usher.count("EMFILE")).as(output).isEqualTo(1);
            assertThat(output).doesNotContain("exceptionCaught").doesNotContain("\tat ");
        }
    }

    @Test
    void withoutASettingTheCapIsWhatTheLimitHolds() throws Exception {
        try (UsherProcess usher = start("")) {
            assertThat(usher.awaitLine("what the open-file limit of " + OPEN_FILES + " holds"))
                    .contains("instead of 10000");
            List<Socket> clients = idleClients(usher.port(), 400);
            Thread.sleep(1_500);
            closeAll(clients);
            assertThat(served(usher.port()).body()).contains("fds");
            assertThat(usher.output()).doesNotContain("EMFILE").doesNotContain("\tat ");
        }
    }
}
