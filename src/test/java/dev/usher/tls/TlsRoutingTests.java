package dev.usher.tls;

import dev.usher.testing.LogCapture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.cert.CertifiedKey;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real TLS clients against a real listener; run once per provider by the subclasses. */
abstract class TlsRoutingTests {
    static final TestPki PKI = new TestPki();
    final CertifiedKey a = PKI.leaf("a.test");
    final CertifiedKey b = PKI.leaf("b.test", "www.b.test");
    final CertifiedKey ip = PKI.leaf("127.0.0.1");
    TlsServer server;
    /** The port the static client helpers connect to; one test runs at a time per class. */
    static final ThreadLocal<Integer> serverPort = new ThreadLocal<>();

    abstract boolean openSsl();

    @BeforeEach
    void start() throws Exception {
        server = new TlsServer(openSsl(), Duration.ofMillis(500));
        server.certificates.put("a.test", a);
        server.certificates.put("b.test", b);
        server.certificates.put("www.b.test", b);
        server.certificates.put("127.0.0.1", ip);
        serverPort.set(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void picksTheCertificateNamedBySni() throws Exception {
        try (SSLSocket socket = connect(PKI.clientContext(), "a.test", "h2", "http/1.1")) {
            assertThat(leaf(socket)).isEqualTo(a.leaf());
            assertThat(socket.getApplicationProtocol()).isEqualTo("h2");
            assertThat(exchange(socket, "hello")).startsWith("sni=a.test alpn=h2 tls=TLSv1.3 line=hello");
        }
        try (SSLSocket socket = connect(PKI.clientContext(), "www.b.test", "http/1.1")) {
            assertThat(leaf(socket)).isEqualTo(b.leaf());
            assertThat(exchange(socket, "x")).startsWith("sni=www.b.test alpn=http/1.1");
        }
    }

    @Test
    void clientOfferingNoAlpnStillGetsServed() throws Exception {
        try (SSLSocket socket = connect(PKI.clientContext(), "a.test")) {
            assertThat(exchange(socket, "x")).startsWith("sni=a.test alpn=null");
        }
    }

    @Test
    void unknownNameFailsBeforeAnyCertificateIsShown() throws Exception {
        List<X509Certificate[]> seen = new CopyOnWriteArrayList<>();
        assertThatThrownBy(() -> connect(recordingClient(seen), "unknown.test", "h2")).isInstanceOf(SSLException.class);
        assertThat(seen).isEmpty();
        try (SSLSocket socket = connect(PKI.clientContext(), "b.test", "h2")) {
            assertThat(leaf(socket)).isEqualTo(b.leaf());
        }
    }

    @Test
    void withoutSniTheLocalAddressNamesTheCertificate() throws Exception {
        try (SSLSocket socket = connect(PKI.clientContext(), null, "http/1.1")) {
            assertThat(leaf(socket)).isEqualTo(ip.leaf());
            assertThat(exchange(socket, "x")).startsWith("sni=127.0.0.1 ");
        }
    }

    @Test
    void acmeTlsAlpnGetsTheChallengeCertificateOthersTheNormalOne() throws Exception {
        CertifiedKey challenge = PKI.challenge("a.test");
        server.answers.putTlsAlpn01("a.test", challenge);
        List<X509Certificate[]> seen = new CopyOnWriteArrayList<>();
        try (SSLSocket socket = connect(recordingClient(seen), "a.test", "acme-tls/1");
             SSLSocket normal = connect(PKI.clientContext(), "a.test", "h2", "http/1.1")) {
            assertThat(leaf(socket)).isEqualTo(challenge.leaf());
            assertThat(socket.getApplicationProtocol()).isEqualTo("acme-tls/1");
            assertThat(leaf(normal)).isEqualTo(a.leaf());
            assertThat(exchange(normal, "x")).startsWith("sni=a.test alpn=h2");
        }
        seen.clear();
        // A fresh client: the JDK would resume with the cached session's SNI (a.test) rather than send b.test.
        assertThatThrownBy(() -> connect(recordingClient(seen), "b.test", "acme-tls/1"))
                .isInstanceOf(SSLException.class);
        assertThat(seen).isEmpty();
    }

    @Test
    void renewedCertificateGoesToNewConnectionsWhileOpenOnesKeepWorking() throws Exception {
        try (SSLSocket before = connect(PKI.clientContext(), "a.test", "h2")) {
            assertThat(exchange(before, "one")).contains("line=one");
            CertifiedKey renewed = PKI.leaf("a.test");
            server.certificates.put("a.test", renewed);
            try (SSLSocket after = connect(PKI.clientContext(), "a.test", "h2")) {
                assertThat(leaf(after)).isEqualTo(renewed.leaf());
                assertThat(exchange(after, "two")).contains("line=two");
            }
            assertThat(leaf(before)).isEqualTo(a.leaf());
            assertThat(exchange(before, "three")).contains("line=three");
        }
    }

    @Test
    void acceptsTls13AndTls12() throws Exception {
        for (String version : List.of("TLSv1.3", "TLSv1.2")) {
            SSLSocket socket = socket(PKI.clientContext(), "a.test", "h2");
            socket.setEnabledProtocols(new String[] {version});
            try (socket) {
                socket.startHandshake();
                assertThat(socket.getSession().getProtocol()).isEqualTo(version);
                assertThat(exchange(socket, "x")).contains("tls=" + version);
            }
        }
    }

    @Test
    void refusesTls11() throws Exception {
        // The JDK client refuses TLS 1.1 itself, so a hand-made TLS 1.1 hello tests the server instead.
        try (LogCapture logs = new LogCapture(); Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(Hellos.records(Hellos.handshake(Hellos.TLS_1_1, "a.test", List.of()),
                    16384));
            assertThat(RawAnswer.read(socket)).isIn(RawAnswer.ALERT, RawAnswer.CLOSED);
            assertThat(RawAnswer.closedAfter(socket)).isTrue();
            Thread.sleep(100); // the server logs after closing
            assertThat(logs.records).as("a refused handshake is no error").isEmpty();
        }
    }

    @Test
    void helloTricklingInByteByByteAndSpreadOverRecordsIsServed() throws Exception {
        byte[] hello = Hellos.handshake(Hellos.TLS_1_2, "a.test", List.of("h2"));
        for (byte[] wire : List.of(Hellos.records(hello, 16384), Hellos.records(hello, 7))) {
            try (Socket socket = new Socket("127.0.0.1", server.port())) {
                socket.setSoTimeout(5000);
                socket.setTcpNoDelay(true);
                OutputStream out = socket.getOutputStream();
                for (byte b : wire) {
                    out.write(b);
                    out.flush();
                }
                assertThat(RawAnswer.read(socket)).isEqualTo(RawAnswer.SERVER_HELLO);
            }
        }
    }

    @Test
    void malformedHellosAreClosedQuietly() throws Exception {
        byte[] hello = Hellos.records(Hellos.handshake(Hellos.TLS_1_2, "a.test", List.of("h2")), 16384);
        byte[] random = new byte[512];
        new java.util.Random(7).nextBytes(random);
        byte[] badLength = hello.clone();
        badLength[9 + 2 + 32] = 40; // a session id longer than 32 bytes, overrunning what follows
        List<byte[]> inputs = List.of(random, new byte[] {22, 3, 1, 0, 0}, new byte[] {21, 3, 3, 0, 2, 2, 40},
                "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII), badLength,
                java.util.Arrays.copyOf(hello, hello.length / 2));
        try (LogCapture logs = new LogCapture()) {
            for (byte[] input : inputs) {
                try (Socket socket = new Socket("127.0.0.1", server.port())) {
                    socket.setSoTimeout(5000);
                    socket.getOutputStream().write(input);
                    // a truncated hello is closed by the hello timeout (500 ms here), the rest at once
                    assertThat(RawAnswer.read(socket)).isIn(RawAnswer.ALERT, RawAnswer.CLOSED);
                    assertThat(RawAnswer.closedAfter(socket)).isTrue();
                }
            }
            try (SSLSocket socket = connect(PKI.clientContext(), "a.test", "h2")) {
                assertThat(leaf(socket)).isEqualTo(a.leaf());
            }
            assertThat(logs.records).isEmpty();
        }
    }

    @Test
    void silentClientIsClosedAfterTheHelloTimeout() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(5000);
            long start = System.nanoTime();
            assertThat(RawAnswer.read(socket)).isEqualTo(RawAnswer.CLOSED);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(400),
                    Duration.ofSeconds(3));
        }
    }

    @Test
    void curlGetsTheNamedSite(@TempDir Path dir) throws Exception {
        Cli.assumeInstalled("curl");
        Path ca = PKI.writeCaPem(dir);
        int port = server.port();
        for (String name : List.of("a.test", "www.b.test")) {
            String out = Cli.run(List.of("curl", "-sS", "--http1.1", "--max-time", "10", "--resolve",
                    name + ":" + port + ":127.0.0.1", "--cacert", ca.toString(),
                    "https://" + name + ":" + port + "/"), Duration.ZERO);
            assertThat(out).startsWith("sni=" + name + " alpn=http/1.1 tls=TLSv1.3");
        }
        String unknown = Cli.run(List.of("curl", "-sS", "--max-time", "10", "--resolve",
                "c.test:" + port + ":127.0.0.1", "--cacert", ca.toString(), "https://c.test:" + port + "/"),
                Duration.ZERO);
        assertThat(unknown).contains("curl: (35)").doesNotContain("sni=");
    }

    @Test
    void opensslNegotiatesH2AndResumesSessions(@TempDir Path dir) throws Exception {
        Cli.assumeInstalled("openssl");
        Path ca = PKI.writeCaPem(dir);
        Path session = dir.resolve("session.pem");
        for (String version : List.of("-tls1_3", "-tls1_2")) {
            List<String> command = List.of("openssl", "s_client", "-connect", "127.0.0.1:" + server.port(),
                    "-servername", "b.test", "-verify_hostname", "b.test", "-alpn", "h2", "-CAfile", ca.toString(),
                    version);
            // A line for the server to answer: through Netty, BoringSSL's TLS 1.3 session ticket leaves with the
            // server's first application data (HTTP/2 SETTINGS or an HTTP/1.1 response in production).
            String first = Cli.run(concat(command, "-sess_out", session.toString()), "ping\n", Duration.ofMillis(700));
            assertThat(first).contains("ALPN protocol: h2").contains("Verify return code: 0 (ok)").contains("New, TLS");
            String second = Cli.run(concat(command, "-sess_in", session.toString()), Duration.ofMillis(300));
            assertThat(second).as("resumed with " + version).contains("Reused, TLS");
        }
    }

    private static List<String> concat(List<String> command, String... more) {
        List<String> all = new java.util.ArrayList<>(command);
        all.addAll(List.of(more));
        return all;
    }

    static SSLSocket connect(SSLContext context, String serverName, String... alpn) throws Exception {
        SSLSocket socket = socket(context, serverName, alpn);
        try {
            socket.startHandshake();
            return socket;
        } catch (Exception e) {
            socket.close();
            throw e;
        }
    }

    private static SSLSocket socket(SSLContext context, String serverName, String... alpn) throws Exception {
        // The socket is opened to 127.0.0.1 by address: the name the client checks is the SNI name when set.
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", serverPort.get());
        socket.setSoTimeout(5000);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setServerNames(serverName == null ? List.of() : List.of(new SNIHostName(serverName)));
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        parameters.setApplicationProtocols(alpn);
        socket.setSSLParameters(parameters);
        return socket;
    }

    /** A client that trusts any certificate and records each chain it is shown. */
    static SSLContext recordingClient(List<X509Certificate[]> seen) throws Exception {
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, new TrustManager[] {new RecordingTrustManager(seen)}, null);
        return context;
    }

    static X509Certificate leaf(SSLSocket socket) throws Exception {
        return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }

    /** Sends a line and reads the one-line answer. */
    static String exchange(SSLSocket socket, String line) throws Exception {
        OutputStream out = socket.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder answer = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            answer.append((char) c);
        }
        return answer.toString();
    }

    /** Trusts everything and remembers every chain it was shown. */
    record RecordingTrustManager(List<X509Certificate[]> seen) implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
            seen.add(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
            seen.add(chain);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
