package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.cli.CliAccess;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Command;
import dev.usher.testing.Pebble;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code usher import caddy}, checked against Caddy itself: Debian's Caddy 2.6.2 runs the original Caddyfile, then
 * Usher runs the file {@code usher import} wrote from it, on the same ports in front of the same whoami backends;
 * the same requests go to both (each host, a redirect, a basic-auth site with and without the password, a header
 * site, a fixed answer, an HTTPS site and its plain-HTTP redirect, an unknown host) and the answers are compared:
 * status, Location, which backend answered, the response headers the Caddyfile sets, and every header the backend
 * saw, but for the differences listed in {@link #KNOWN_DIFFERENCES} (each with its reason, also in docs/migrating.md).
 *
 * <p>Caddy is a real process ({@code apt-get install caddy}); a missing binary fails the test.
 */
class CaddySideBySideTest {
    private static final Path CADDY = Path.of("/usr/bin/caddy");
    /** Headers the backend sees from one proxy and not the other, and why. */
    static final Map<String, String> KNOWN_DIFFERENCES = Map.of(
            "x-real-ip", "Usher also sends the client address as X-Real-IP (nginx's convention)",
            "accept-encoding", "Caddy's Go HTTP client asks the backend for gzip by itself when the client did not "
                    + "(and unpacks it); Usher passes the client's own Accept-Encoding, or none");

    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    Path work;

    @Test
    void caddyAndTheImportedUsherAnswerAlike() throws Exception {
        assertThat(Files.isExecutable(CADDY)).as("Caddy must be installed (apt-get install caddy)").isTrue();
        Whoami a = servers.backend("backend-a");
        Whoami b = servers.backend("backend-b");
        int httpPort = Pebble.freePort();
        int httpsPort = Pebble.freePort();
        String hash = OpenBSDBCrypt.generate("2a", "secret".toCharArray(), new byte[16], 10);
        Path caddyfile = Files.writeString(work.resolve("Caddyfile"), """
                {
                	http_port %1$d
                	https_port %2$d
                	admin off
                	skip_install_trust
                }

                http://app.test {
                	reverse_proxy 127.0.0.1:%3$d 127.0.0.1:%4$d {
                		lb_policy first
                		header_up X-Env prod
                	}
                }

                http://old.test {
                	redir https://new.test{uri} 301
                }

                http://private.test {
                	basicauth {
                		alice %5$s
                	}
                	reverse_proxy 127.0.0.1:%4$d
                }

                http://headers.test {
                	header X-Frame-Options DENY
                	header +X-Added one
                	reverse_proxy 127.0.0.1:%3$d
                }

                http://hello.test {
                	respond "hello" 200
                }

                secure.test {
                	tls internal
                	reverse_proxy 127.0.0.1:%4$d
                }
                """.formatted(httpPort, httpsPort, a.port(), b.port(), hash));
        List<Probe> probes = List.of(
                new Probe("app.test", false, "/one?x=1", null),
                new Probe("old.test", false, "/some/path?q=1", null),
                new Probe("private.test", false, "/", null),
                new Probe("private.test", false, "/in", "alice:secret"),
                new Probe("private.test", false, "/", "alice:wrong"),
                new Probe("headers.test", false, "/h", null),
                new Probe("hello.test", false, "/", null),
                new Probe("secure.test", true, "/s", null),
                new Probe("secure.test", false, "/to-https?y=2", null));

        Map<Probe, Answer> caddy = new LinkedHashMap<>();
        Answer caddyUnknown;
        Process process = startCaddy(caddyfile, httpPort);
        try {
            for (Probe p : probes) {
                caddy.put(p, p.send(httpPort, httpsPort));
            }
            caddyUnknown = new Probe("unknown.test", false, "/", null).send(httpPort, httpsPort);
        } finally {
            process.destroy();
            process.waitFor();
        }

        Path out = work.resolve("usher.yaml");
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        int code = CliAccess.run(List.of("import", "caddy", caddyfile.toString(), "-o", out.toString(), "--data",
                work.resolve("data").toString(), "--certs", work.resolve("no-caddy-data").toString()), stdout, stderr);
        assertThat(code).as(stdout + "\n" + stderr).isZero();
        String yaml = "admin: off\nhttp3: false\n" + Files.readString(out);
        Map<Probe, Answer> usher = new LinkedHashMap<>();
        Answer usherUnknown;
        try (Usher running = Usher.start(ConfigLoader.parse(yaml.getBytes(StandardCharsets.UTF_8), out), 2,
                new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1))) {
            for (Probe p : probes) {
                usher.put(p, p.send(httpPort, httpsPort));
            }
            usherUnknown = new Probe("unknown.test", false, "/", null).send(httpPort, httpsPort);
        }

        for (Probe p : probes) {
            Answer c = caddy.get(p);
            Answer u = usher.get(p);
            String label = p + "\nCaddy: " + c + "\nUsher: " + u + "\nusher.yaml:\n" + yaml;
            assertThat(u.status()).as("status of " + label).isEqualTo(c.status());
            if (p.path().startsWith("/to-https")) {
                // Caddy's redirect to HTTPS leaves out a port other than 443 (so it points at 443 here, where
                // nothing listens); Usher keeps the HTTPS port it listens on. On 443 the two are the same.
                assertThat(u.location()).as("Location of " + label)
                        .isEqualTo(c.location().replace("https://" + p.host() + "/",
                                "https://" + p.host() + ":" + httpsPort + "/"));
                continue;
            }
            assertThat(u.location()).as("Location of " + label).isEqualTo(c.location());
            assertThat(u.backend()).as("backend of " + label).isEqualTo(c.backend());
            for (String h : List.of("x-frame-options", "x-added")) {
                assertThat(u.headers().get(h)).as(h + " of " + label).isEqualTo(c.headers().get(h));
            }
            assertThat(u.headers().containsKey("www-authenticate")).as("WWW-Authenticate of " + label)
                    .isEqualTo(c.headers().containsKey("www-authenticate"));
            Map<String, String> seenByCaddysBackend = withoutKnownDifferences(c.seen());
            Map<String, String> seenByUshersBackend = withoutKnownDifferences(u.seen());
            assertThat(seenByUshersBackend).as("headers the backend saw, " + label).isEqualTo(seenByCaddysBackend);
        }
        assertThat(caddy.get(probes.get(0)).backend()).isEqualTo("backend-a");
        assertThat(caddy.get(probes.get(3)).backend()).isEqualTo("backend-b");
        assertThat(caddy.get(probes.get(2)).status()).isEqualTo(401);
        // The one answer that differs on purpose: a name neither has a site for. Caddy redirects every plain-HTTP
        // request to HTTPS once it has an HTTPS site (where the handshake for that name then fails); Usher answers
        // 404 at once, so that a mistyped name is never mistaken for a working site.
        assertThat(caddyUnknown.status()).as(caddyUnknown.toString()).isEqualTo(308);
        assertThat(usherUnknown.status()).as(usherUnknown.toString()).isEqualTo(404);
    }

    private static Map<String, String> withoutKnownDifferences(Map<String, String> seen) {
        Map<String, String> out = new TreeMap<>(seen);
        out.keySet().removeAll(KNOWN_DIFFERENCES.keySet());
        return out;
    }

    private Process startCaddy(Path caddyfile, int httpPort) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(CADDY.toString(), "run", "--config", caddyfile.toString(), "--adapter",
                "caddyfile").redirectErrorStream(true).redirectOutput(work.resolve("caddy.log").toFile());
        pb.environment().put("HOME", work.toString());
        pb.environment().put("XDG_DATA_HOME", work.resolve("caddy-data").toString());
        pb.environment().put("XDG_CONFIG_HOME", work.resolve("caddy-config").toString());
        Process p = pb.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", httpPort)) {
                Thread.sleep(300); // the HTTPS listener and the internal CA follow the HTTP one
                return p;
            } catch (IOException e) {
                if (!p.isAlive()) {
                    break;
                }
                Thread.sleep(100);
            }
        }
        p.destroy();
        throw new AssertionError("Caddy did not start:\n" + Files.readString(work.resolve("caddy.log")));
    }

    /** One request: to {@code host}, over HTTPS or plain HTTP, with a login or none. */
    record Probe(String host, boolean https, String path, String login) {
        Answer send(int httpPort, int httpsPort) throws IOException {
            List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-i", "--max-time", "10",
                    "-H", "User-Agent: side-by-side", "-H", "Accept: */*"));
            if (login != null) {
                cmd.addAll(List.of("-u", login));
            }
            if (https) {
                cmd.addAll(List.of("-k", "--resolve", host + ":" + httpsPort + ":127.0.0.1",
                        "https://" + host + ":" + httpsPort + path));
            } else {
                cmd.addAll(List.of("-H", "Host: " + host, "http://127.0.0.1:" + httpPort + path));
            }
            Command c = Command.run(20, cmd);
            if (c.exitCode() != 0) {
                throw new IOException("curl failed for " + this + ": " + c.output());
            }
            return Answer.parse(c.output());
        }
    }

    /**
     * An answer: status, Location, response headers, and for a proxied answer the whoami backend's name and the
     * request headers it saw (lower-case names).
     */
    record Answer(int status, String location, Map<String, String> headers, String backend,
                  Map<String, String> seen) {
        static Answer parse(String response) {
            String[] parts = response.replace("\r\n", "\n").split("\n\n", 2);
            String[] head = parts[0].split("\n");
            int status = Integer.parseInt(head[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < head.length; i++) {
                int colon = head[i].indexOf(':');
                if (colon > 0) {
                    headers.merge(head[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                            head[i].substring(colon + 1).strip(), (x, y) -> x + ", " + y);
                }
            }
            String body = parts.length > 1 ? parts[1] : "";
            String backend = null;
            Map<String, String> seen = new TreeMap<>();
            boolean inHeaders = false;
            for (String line : body.split("\n")) {
                if (line.startsWith("Hostname: ") && backend == null) {
                    backend = line.substring("Hostname: ".length()).strip();
                } else if (line.matches("[A-Z]+ \\S+ HTTP/\\d\\.\\d")) {
                    inHeaders = true;
                } else if (inHeaders && line.isBlank()) {
                    break;
                } else if (inHeaders && line.indexOf(':') > 0) {
                    String name = line.substring(0, line.indexOf(':')).toLowerCase(Locale.ROOT);
                    seen.merge(name, line.substring(line.indexOf(':') + 1).strip(), (x, y) -> x + ", " + y);
                }
            }
            return new Answer(status, headers.get("location"), headers, backend, seen);
        }
    }
}
