package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code https://} backends through a real Usher: Netty TLS servers with certificates from a throwaway CA
 * ({@link BackendCerts}). A CA the system does not know is refused without {@code ca}/{@code insecure_skip_verify}
 * and accepted with either; an expired certificate and one for another name are refused with a log line that says
 * so; {@code server_name} checks another name; a backend that asks for a client certificate gets one; connections
 * are kept alive (handshakes counted at the backend), and a reconnect resumes the TLS session ({@code openssl
 * s_server}); 50 concurrent clients see only 2xx.
 */
class HttpsBackendTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    @TempDir
    static Path dir;
    static NettyBackend good;
    static NettyBackend expired;
    static NettyBackend wrongName;
    static NettyBackend mutual;
    static RunningUsher usher;
    static final List<String> logged = new CopyOnWriteArrayList<>();
    static final Logger attemptsLog = Logger.getLogger("dev.usher.proxy.BackendAttempts");
    static final Handler capture = new Handler() {
        private final SimpleFormatter format = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            logged.add(format.formatMessage(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeAll
    static void start() throws Exception {
        attemptsLog.addHandler(capture);
        BackendCerts certs = new BackendCerts();
        Path ca = certs.writeCa(dir);
        good = servers.track(NettyBackend.tls(server(certs.leaf("127.0.0.1", "backend.internal"))));
        expired = servers.track(NettyBackend.tls(server(certs.expired("127.0.0.1"))));
        wrongName = servers.track(NettyBackend.tls(server(certs.leaf("other.internal"))));
        BackendCerts.Leaf mutualLeaf = certs.leaf("127.0.0.1");
        mutual = servers.track(NettyBackend.tls(SslContextBuilder.forServer(mutualLeaf.key(),
                mutualLeaf.certificate()).trustManager(certs.ca()).clientAuth(ClientAuth.REQUIRE).build()));
        Path client = certs.leaf("usher-client").write(dir, "client");
        String tls = "{ca: " + ca + "}";
        usher = servers.usher("""
                sites:
                  http://unknown-ca.test: https://127.0.0.1:%1$d
                  http://with-ca.test: {to: https://127.0.0.1:%1$d, upstream_tls: %5$s}
                  http://skip.test: {to: https://127.0.0.1:%1$d, upstream_tls: {insecure_skip_verify: true}}
                  http://named.test:
                    to: https://127.0.0.1:%1$d
                    upstream_tls: {ca: %6$s, server_name: backend.internal}
                  http://expired.test: {to: https://127.0.0.1:%2$d, upstream_tls: %5$s}
                  http://wrong-name.test: {to: https://127.0.0.1:%3$d, upstream_tls: %5$s}
                  http://client-cert.test:
                    to: https://127.0.0.1:%4$d
                    upstream_tls: {ca: %6$s, client_cert: %7$s, client_key: %8$s}
                  http://no-client-cert.test: {to: https://127.0.0.1:%4$d, upstream_tls: %5$s}
                  http://checked.test:
                    to: [https://127.0.0.1:%2$d, https://127.0.0.1:%1$d]
                    upstream_tls: %5$s
                    policy: first
                    health: {path: /health-check, interval: 1s, timeout: 500ms}
                """.formatted(good.port(), expired.port(), wrongName.port(), mutual.port(), tls, ca, client,
                dir.resolve("client.key")));
    }

    @AfterAll
    static void stopCapture() {
        attemptsLog.removeHandler(capture);
    }

    static SslContext server(BackendCerts.Leaf leaf) throws Exception {
        return SslContextBuilder.forServer(leaf.key(), leaf.certificate()).build();
    }

    static RawHttp.Response get(String host, String path) throws Exception {
        try (RawHttp raw = new RawHttp(usher.port())) {
            return raw.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").read();
        }
    }

    /** The log line of a refused backend of {@code site}. */
    static String refusal(String site) {
        return logged.stream().filter(l -> l.startsWith(site + ": cannot connect to backend")).findFirst()
                .orElse("(none logged for " + site + ": " + logged + ")");
    }

    @Test
    void aCaTheSystemDoesNotKnowIsRefusedWithA502() throws Exception {
        assertThat(get("unknown-ca.test", "/").status()).isEqualTo(502);
        assertThat(refusal("unknown-ca.test")).contains("https://127.0.0.1:" + good.port())
                .contains("certificate signed by an unknown CA");
    }

    @Test
    void theSameBackendIsAcceptedWithItsCaOrWithVerificationSkipped() throws Exception {
        RawHttp.Response withCa = get("with-ca.test", "/a?b=c");
        assertThat(withCa.status()).isEqualTo(200);
        assertThat(withCa.body()).isEqualTo("h1 GET /a?b=c");
        assertThat(get("skip.test", "/s").body()).isEqualTo("h1 GET /s");
    }

    @Test
    void serverNameChecksTheCertificateAgainstAnotherName() throws Exception {
        assertThat(get("named.test", "/n").body()).isEqualTo("h1 GET /n");
    }

    @Test
    void anExpiredCertificateIsA502ThatSaysSo() throws Exception {
        assertThat(get("expired.test", "/").status()).isEqualTo(502);
        assertThat(refusal("expired.test")).contains("certificate expired");
    }

    @Test
    void aCertificateForAnotherNameIsA502ThatSaysSo() throws Exception {
        assertThat(get("wrong-name.test", "/").status()).isEqualTo(502);
        assertThat(refusal("wrong-name.test")).contains("certificate not valid for 127.0.0.1 (wrong name)");
    }

    @Test
    void aBackendAskingForAClientCertificateGetsTheConfiguredOne() throws Exception {
        assertThat(get("client-cert.test", "/m").body()).isEqualTo("h1 GET /m");
        assertThat(get("no-client-cert.test", "/m").status()).isEqualTo(502);
    }

    @Test
    void connectionsToTheBackendAreKeptAliveNotHandshakenPerRequest() throws Exception {
        try (RawHttp raw = new RawHttp(usher.port())) {
            String request = "GET /k HTTP/1.1\r\nHost: with-ca.test\r\n\r\n";
            assertThat(raw.send(request).read().status()).isEqualTo(200);
            int handshakes = good.handshakes.get();
            for (int i = 0; i < 20; i++) {
                assertThat(raw.send(request).read().body()).isEqualTo("h1 GET /k");
            }
            assertThat(good.handshakes.get() - handshakes).isZero();
        }
    }

    @Test
    void healthChecksSpeakTlsAndTakeABackendWithAnExpiredCertificateOut() throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!good.served.contains("h1 GET /health-check") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(good.served).contains("h1 GET /health-check");
        Thread.sleep(1500); // the expired one's first check has failed by now
        int tried = expired.connections.get();
        for (int i = 0; i < 10; i++) {
            assertThat(get("checked.test", "/c").body()).isEqualTo("h1 GET /c");
        }
        // policy first would try the expired backend before every request, were it not marked down
        assertThat(expired.connections.get() - tried).isLessThanOrEqualTo(1);
    }

    /**
     * {@code openssl s_server -www} closes the connection after each answer and says in it whether the session was
     * new or resumed: the second request, on a new connection, must resume the first one's session.
     */
    @Test
    void aReconnectResumesTheTlsSession() throws Exception {
        BackendCerts certs = new BackendCerts();
        Path folder = java.nio.file.Files.createDirectories(dir.resolve("resume"));
        Path ca = certs.writeCa(folder);
        Path cert = certs.leaf("127.0.0.1").write(folder, "s-server");
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Process server = new ProcessBuilder("openssl", "s_server", "-www", "-accept", "127.0.0.1:" + port, "-cert",
                cert.toString(), "-key", folder.resolve("s-server.key").toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try (RunningUsher resuming = RunningUsher.start("sites:\n  http://resume.test: {to: https://127.0.0.1:" + port
                + ", upstream_tls: {ca: " + ca + "}}\n")) {
            String first = null;
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (System.nanoTime() < deadline) {
                try (RawHttp raw = new RawHttp(resuming.port())) {
                    RawHttp.Response r = raw.send("GET / HTTP/1.1\r\nHost: resume.test\r\nConnection: close\r\n\r\n")
                            .read();
                    if (r.status() == 200) {
                        first = r.body();
                        break;
                    }
                }
                Thread.sleep(100); // s_server still starting
            }
            assertThat(first).as("s_server's first answer").contains("New, TLSv1.3");
            try (RawHttp raw = new RawHttp(resuming.port())) {
                String second = raw.send("GET / HTTP/1.1\r\nHost: resume.test\r\nConnection: close\r\n\r\n")
                        .read().body();
                assertThat(second).contains("Reused, TLSv1.3");
            }
        } finally {
            server.destroy();
            server.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Test
    void fiftyConcurrentClientsGetOnly2xx() throws Exception {
        String out = Processes.run(List.of("hey", "-n", "3000", "-c", "50", "-host", "with-ca.test",
                "http://127.0.0.1:" + usher.port() + "/load"));
        assertThat(out).contains("[200]\t3000 responses").doesNotContain("Error distribution");
    }
}
