package dev.usher.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.usher.testing.Command;
import dev.usher.testing.Daemon;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS routed by server name without being terminated, against real peers: {@code openssl s_server} backends holding
 * their own certificates (made with the openssl command), checked with {@code openssl s_client -servername} and
 * curl. The certificate a passthrough name shows is the backend's, not Usher's; a terminated site on the same HTTPS
 * port keeps working; a hello without SNI takes the terminating path; a stream listener routes by {@code sni:}.
 */
class PassthroughTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;

    static int mailBackend;
    static int dotBackend;
    static RunningUsher usher;
    static int dotPort;
    static Daemon ppHaproxy;

    @BeforeAll
    static void start() throws Exception {
        certificate("mail.test");
        certificate("dot.test");
        certificate("files.test");
        mailBackend = sServer("mail.test");
        dotBackend = sServer("dot.test");
        // pp.test: a backend behind HAProxy that requires a PROXY v2 header and logs the client it names.
        certificate("pp.test");
        int ppBackend = sServer("pp.test");
        int ppPort = Daemon.freeTcpPort();
        ppHaproxy = ProxyProtocolTest.haproxy(servers, dir, """
                listen from_usher
                    bind 127.0.0.1:%d accept-proxy
                    log-format "learned %%ci"
                    server pp 127.0.0.1:%d
                """.formatted(ppPort, ppBackend), ppPort);
        Whoami whoami = servers.backend("terminated");
        dotPort = Daemon.freeTcpPort();
        usher = servers.usher("listen: {http: \"127.0.0.1:0\", https: \"127.0.0.1:0\"}\nsites:\n"
                + "  mail.test: {to: 127.0.0.1:" + mailBackend + ", passthrough: true}\n"
                + "  pp.test: {to: 127.0.0.1:" + ppPort + ", tls: passthrough, proxy_protocol: v2}\n"
                + "  files.test: {to: " + Servers.address(whoami) + ", tls: {cert: " + dir.resolve("files.test.pem")
                + ", key: " + dir.resolve("files.test.key") + "}}\n"
                + "streams:\n  \"127.0.0.1:" + dotPort + "\": {sni: {dot.test: 127.0.0.1:" + dotBackend + "}}\n");
    }

    @Test
    void aPassthroughNameShowsTheBackendsCertificateAndIsRelayedBothWays() {
        int https = usher.usher.httpsAddress().getPort();
        String hello = sClient(https, "mail.test");
        assertThat(hello).contains("subject=CN = mail.test").doesNotContain("CN = files.test");
        // The whole exchange goes through: curl trusts only the backend's own certificate and gets s_server's page.
        Command curl = curl("mail.test", https, "mail.test");
        assertThat(curl.exitCode()).as(curl.output()).isZero();
        assertThat(curl.output()).contains("s_server");
    }

    @Test
    void aPassthroughSiteSendsThePROXYHeaderItsBackendRequires() {
        int https = usher.usher.httpsAddress().getPort();
        Command curl = Command.run(20, List.of("curl", "-sS", "--max-time", "10", "--interface", "127.0.0.2",
                "--cacert", dir.resolve("pp.test.pem").toString(), "--resolve", "pp.test:" + https + ":127.0.0.1",
                "https://pp.test:" + https + "/"));
        assertThat(curl.exitCode()).as(curl.output()).isZero();
        assertThat(curl.output()).contains("s_server");
        ppHaproxy.awaitOutput("learned 127.0.0.2");
    }

    @Test
    void aTerminatedSiteOnTheSamePortKeepsWorking() {
        int https = usher.usher.httpsAddress().getPort();
        assertThat(sClient(https, "files.test")).contains("subject=CN = files.test").doesNotContain("CN = mail.test");
        Command curl = curl("files.test", https, "files.test");
        assertThat(curl.exitCode()).as(curl.output()).isZero();
        assertThat(curl.output()).contains("Hostname: terminated");
    }

    @Test
    void aHelloWithoutServerNameTakesTheTerminatingPath() {
        int https = usher.usher.httpsAddress().getPort();
        Command c = Command.run(20, List.of("openssl", "s_client", "-connect", "127.0.0.1:" + https,
                "-noservername"));
        // Nothing Usher terminates is named 127.0.0.1, so it refuses; the passthrough backend never sees it.
        assertThat(c.output()).doesNotContain("CN = mail.test").contains("alert");
    }

    @Test
    void aStreamListenerRoutesBySniAndClosesUnknownNames() {
        assertThat(sClient(dotPort, "dot.test")).contains("subject=CN = dot.test");
        Command curl = curl("dot.test", dotPort, "dot.test");
        assertThat(curl.exitCode()).as(curl.output()).isZero();
        assertThat(curl.output()).contains("s_server");
        // A name the stream does not list, and no default: closed before any certificate.
        assertThat(sClient(dotPort, "other.test")).doesNotContain("subject=");
    }

    static String sClient(int port, String name) {
        return Command.run(20, List.of("openssl", "s_client", "-connect", "127.0.0.1:" + port, "-servername",
                name)).output();
    }

    /** curl to https://{@code name}:{@code port}/ on 127.0.0.1, trusting only {@code trusted}'s certificate. */
    static Command curl(String name, int port, String trusted) {
        return Command.run(20, List.of("curl", "-sS", "--max-time", "10", "--cacert",
                dir.resolve(trusted + ".pem").toString(), "--resolve", name + ":" + port + ":127.0.0.1",
                "https://" + name + ":" + port + "/"));
    }

    /** A self-signed certificate for {@code name} in DIR/name.pem and DIR/name.key. */
    static void certificate(String name) {
        Command c = Command.run(30, List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=" + name, "-addext",
                "subjectAltName=DNS:" + name, "-keyout", dir.resolve(name + ".key").toString(), "-out",
                dir.resolve(name + ".pem").toString()));
        assertThat(c.exitCode()).as(c.output()).isZero();
    }

    /** {@code openssl s_server -www} with {@code name}'s certificate: answers GET with a page of its own. */
    static int sServer(String name) {
        int port = Daemon.freeTcpPort();
        List<String> command = new ArrayList<>(List.of("openssl", "s_server", "-accept", "127.0.0.1:" + port,
                "-cert", dir.resolve(name + ".pem").toString(), "-key", dir.resolve(name + ".key").toString(),
                "-www"));
        servers.track(Daemon.start(command)).awaitTcp(port);
        return port;
    }
}
