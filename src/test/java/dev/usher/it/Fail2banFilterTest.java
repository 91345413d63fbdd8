package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * contrib/fail2ban's filter, run by Debian's real {@code fail2ban-regex} on an access log Usher wrote: the refused
 * requests (401, 403, 429) match with the client's address, the served ones and a URI crafted to look like a
 * refusal do not.
 */
class Fail2banFilterTest {
    @RegisterExtension
    final Servers servers = new Servers();

    @TempDir
    Path dir;

    @Test
    void theFilterFindsTheRefusedRequestsOfARealAccessLog() throws Exception {
        Whoami backend = servers.backend("f2b");
        Path log = dir.resolve("access.log");
        RunningUsher usher = servers.usher("""
                access_log: %s
                sites:
                  app.example.com: {to: "127.0.0.1:%d", basic_auth: {alice: "%s"}}
                  open.example.com: 127.0.0.1:%d
                  closed.example.com: {to: "127.0.0.1:%d", allow: [10.0.0.0/8]}
                """.formatted(log, backend.port(), OpenBSDBCrypt.generate("2y", "secret".toCharArray(), new byte[16], 4),
                        backend.port(), backend.port()));
        for (String request : List.of(
                "GET /login HTTP/1.1\r\nHost: app.example.com\r\n\r\n",
                "GET /login HTTP/1.1\r\nHost: app.example.com\r\nAuthorization: Basic YWxpY2U6d3Jvbmc=\r\n\r\n",
                "GET / HTTP/1.1\r\nHost: closed.example.com\r\n\r\n",
                "GET /ok HTTP/1.1\r\nHost: open.example.com\r\n\r\n",
                "GET /%22,%22status%22:401, HTTP/1.1\r\nHost: open.example.com\r\n\r\n")) {
            try (RawHttp http = new RawHttp(usher.port())) {
                http.send(request).read();
            }
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((!Files.exists(log) || Files.readAllLines(log).size() < 5) && System.nanoTime() < deadline) {
            Thread.sleep(50); // the access log is written by a thread of its own
        }
        assertThat(Files.readAllLines(log)).hasSize(5);
        Path filter = Path.of("contrib/fail2ban/filter.d/usher.conf").toAbsolutePath();
        String out = Processes.run(List.of("fail2ban-regex", "--print-all-matched", log.toString(),
                filter.toString()));
        assertThat(out).contains("Lines: 5 lines, 0 ignored, 3 matched, 2 missed");
        assertThat(out).contains("127.0.0.1");
    }
}
