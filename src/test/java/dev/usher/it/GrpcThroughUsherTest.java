package dev.usher.it;

import dev.usher.testing.Servers;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * gRPC and HTTP/2 backends through Usher: clients speak HTTP/2 over TLS to Usher (a bare frame client, to see
 * exactly which frames come back, and nghttp), Usher speaks HTTP/2 to the backend, cleartext ({@code h2c://}) or
 * over TLS where ALPN chose h2. The backend is {@link NettyBackend}, which follows gRPC's wire contract: unary and
 * server-streaming calls end with {@code grpc-status} in trailers, an unknown method gets a trailers-only error.
 */
class GrpcThroughUsherTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static NettyBackend h2c;
    static NettyBackend tlsH2;
    static TlsTestServer usher;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        h2c = servers.track(NettyBackend.h2c());
        BackendCerts certs = new BackendCerts();
        BackendCerts.Leaf leaf = certs.leaf("127.0.0.1");
        SslContext backendTls = SslContextBuilder.forServer(leaf.key(), leaf.certificate())
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
                .build();
        tlsH2 = servers.track(NettyBackend.tls(backendTls));
        usher = servers.track(TlsTestServer.start("""
                sites:
                  grpc.test: h2c://127.0.0.1:%1$d
                  tls-h2.test:
                    to: https://127.0.0.1:%2$d
                    upstream_tls: {insecure_skip_verify: true, alpn: [h2, http/1.1]}
                  tls-h1.test:
                    to: https://127.0.0.1:%2$d
                    upstream_tls: {insecure_skip_verify: true}
                """.formatted(h2c.port(), tlsH2.port())));
    }

    static Http2Headers call(String authority, String method) {
        return new DefaultHttp2Headers().method("POST").scheme("https").authority(authority)
                .path("/test.Echo/" + method).set("content-type", "application/grpc").set("te", "trailers")
                .set("grpc-timeout", "5S");
    }

    /** Calls {@code method} on stream 1 with one message (the request ends with it); the frames of the answer. */
    static List<RawH2Client.Frame> callWithOneMessage(RawH2Client h2, String authority, String method, String message)
            throws Exception {
        h2.headers(1, call(authority, method), false);
        h2.frame(RawH2Client.DATA, 1, 1, NettyBackend.grpcMessage(message));
        return frames(h2, 1);
    }

    /** Frames of {@code stream} up to the one ending it (or the end of the connection). */
    static List<RawH2Client.Frame> frames(RawH2Client h2, int stream) throws Exception {
        List<RawH2Client.Frame> frames = new ArrayList<>();
        while (true) {
            RawH2Client.Frame f = h2.read();
            if (f.type() == -1) {
                return frames;
            }
            if (f.stream() != stream) {
                continue;
            }
            frames.add(f);
            if ((f.flags() & 1) != 0 || f.type() == RawH2Client.RST_STREAM) {
                return frames;
            }
        }
    }

    @Test
    void unaryCallGetsItsMessageAndGrpcStatusInTrailers() throws Exception {
        try (RawH2Client h2 = new RawH2Client(usher.port(), "grpc.test")) {
            List<RawH2Client.Frame> frames = callWithOneMessage(h2, "grpc.test", "Unary", "hello");
            assertThat(frames).extracting(RawH2Client.Frame::type)
                    .containsExactly(RawH2Client.HEADERS, RawH2Client.DATA, RawH2Client.HEADERS);
            Http2Headers head = h2.decode(frames.get(0));
            assertThat(head.status()).hasToString("200");
            assertThat(head.get("content-type")).hasToString("application/grpc");
            // te: trailers and the deadline reach the backend as they were sent; the deadline is the backend's
            assertThat(head.get("x-seen-te")).hasToString("trailers");
            assertThat(head.get("x-seen-grpc-timeout")).hasToString("5S");
            assertThat(frames.get(1).payload()).isEqualTo(NettyBackend.grpcMessage("hello"));
            Http2Headers trailers = h2.decode(frames.get(2));
            assertThat(trailers.get("grpc-status")).hasToString("0");
            assertThat(frames.get(2).flags() & 1).isEqualTo(1);
        }
    }

    @Test
    void serverStreamingCallGetsEveryMessageThenTrailers() throws Exception {
        try (RawH2Client h2 = new RawH2Client(usher.port(), "grpc.test")) {
            List<RawH2Client.Frame> frames = callWithOneMessage(h2, "grpc.test", "Stream", "go");
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            frames.stream().filter(f -> f.type() == RawH2Client.DATA).forEach(f -> body.writeBytes(f.payload()));
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int i = 1; i <= 5; i++) {
                expected.writeBytes(NettyBackend.grpcMessage("part " + i));
            }
            assertThat(body.toByteArray()).isEqualTo(expected.toByteArray());
            RawH2Client.Frame last = frames.get(frames.size() - 1);
            assertThat(last.type()).isEqualTo(RawH2Client.HEADERS);
            assertThat(h2.decode(last).get("grpc-status")).hasToString("0");
        }
    }

    @Test
    void trailersOnlyErrorStaysOneHeadersFrameEndingTheStream() throws Exception {
        try (RawH2Client h2 = new RawH2Client(usher.port(), "grpc.test")) {
            List<RawH2Client.Frame> frames = callWithOneMessage(h2, "grpc.test", "Missing", "?");
            assertThat(frames).extracting(RawH2Client.Frame::type).containsExactly(RawH2Client.HEADERS);
            assertThat(frames.get(0).flags() & 1).isEqualTo(1);
            Http2Headers only = h2.decode(frames.get(0));
            assertThat(only.status()).hasToString("200");
            assertThat(only.get("grpc-status")).hasToString("12");
            assertThat(only.get("grpc-message")).hasToString("unknown method /test.Echo/Missing");
        }
    }

    @Test
    void anHttp1ClientGetsATrailersOnlyErrorAsOneResponseAndKeepsItsConnection() throws Exception {
        String url = "https://grpc.test:" + usher.port();
        String out = Processes.run(List.of("curl", "-sk", "--http1.1", "--max-time", "20", "--resolve",
                "grpc.test:" + usher.port() + ":127.0.0.1", "-D", "-", "-w", "[connects=%{num_connects}]\n",
                "-X", "POST", "-H", "content-type: application/grpc", "--data-binary", "x",
                url + "/test.Echo/Missing", url + "/test.Echo/Missing"));
        assertThat(out.split("HTTP/1.1 200", -1)).hasSize(3);
        assertThat(out).containsIgnoringCase("grpc-status: 12").contains("[connects=1]").contains("[connects=0]");
    }

    @Test
    void manyCallsShareOneBackendConnectionPerEventLoop() throws Exception {
        int before = h2c.connections.get();
        String out = Processes.run(List.of("h2load", "-n", "2000", "-c", "4", "-m", "20", "-H",
                ":authority: grpc.test", "https://127.0.0.1:" + usher.port() + "/plain"));
        assertThat(out).contains("2000 succeeded, 0 failed, 0 errored").contains("status codes: 2000 2xx");
        // TlsTestServer runs two event loops: one multiplexed connection each at most, however many streams
        assertThat(h2c.connections.get() - before).isLessThanOrEqualTo(2);
    }

    @Test
    void nghttpUploadsAndGetsBackFourMebibytesThroughFlowControlBothWays() throws Exception {
        byte[] payload = "0123456789abcdef".repeat(256 * 1024).getBytes(StandardCharsets.US_ASCII);
        Path upload = Files.write(dir.resolve("upload.bin"), payload);
        Path answer = dir.resolve("answer.bin");
        Process p = new ProcessBuilder("nghttp", "-H", ":authority: grpc.test", "-H", "content-type: application/grpc",
                "-H", "te: trailers", "-d", upload.toString(),
                "https://127.0.0.1:" + usher.port() + "/test.Echo/Unary")
                .redirectOutput(answer.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(Files.readAllBytes(answer)).isEqualTo(payload);
    }

    @Test
    void healthChecksOfAnH2cBackendAreStreamsOfTheirOwn() throws Exception {
        try (NettyBackend checked = NettyBackend.h2c();
             dev.usher.testing.RunningUsher plain = dev.usher.testing.RunningUsher.start(
                     "sites:\n  http://h.test: {to: h2c://127.0.0.1:" + checked.port()
                             + ", health: {path: /health-check, interval: 1s}}\n")) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!checked.served.contains("h2 GET /health-check") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(checked.served).contains("h2 GET /health-check");
        }
    }

    @Test
    void anHttpsBackendThatSpeaksOnlyH2IsHealthCheckedOverHttp2() throws Exception {
        try (dev.usher.testing.RunningUsher plain = dev.usher.testing.RunningUsher.start(
                "sites:\n  http://h2only.test: {to: https://127.0.0.1:" + tlsH2.port()
                        + ", upstream_tls: {insecure_skip_verify: true, alpn: [h2]},"
                        + " health: {path: /h2-only-check, interval: 1s}}\n")) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!tlsH2.served.contains("h2 GET /h2-only-check") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(tlsH2.served).contains("h2 GET /h2-only-check").doesNotContain("h1 GET /h2-only-check");
        }
    }

    @Test
    void anHttp1ClientIsCarriedOnAStreamOfTheH2cBackend() throws Exception {
        String out = Processes.run(List.of("curl", "-sk", "--http1.1", "--max-time", "20", "--resolve",
                "grpc.test:" + usher.port() + ":127.0.0.1", "-D", "-",
                "https://grpc.test:" + usher.port() + "/plain?q=1"));
        assertThat(out).startsWith("HTTP/1.1 200").contains("h2 GET /plain?q=1").doesNotContainIgnoringCase("x-http2-");
    }

    @Test
    void anHttpsBackendOfferingH2IsSpokenToInHttp2WhenAlpnAsksForIt() throws Exception {
        String h2 = Processes.run(List.of("nghttp", "-H", ":authority: tls-h2.test",
                "https://127.0.0.1:" + usher.port() + "/which"));
        assertThat(h2).contains("h2 GET /which");
        String h1 = Processes.run(List.of("nghttp", "-H", ":authority: tls-h1.test",
                "https://127.0.0.1:" + usher.port() + "/which"));
        assertThat(h1).contains("h1 GET /which");
        try (RawH2Client client = new RawH2Client(usher.port(), "tls-h2.test")) {
            List<RawH2Client.Frame> frames = callWithOneMessage(client, "tls-h2.test", "Unary", "over tls");
            assertThat(frames).hasSize(3);
            assertThat(frames.get(1).payload()).isEqualTo(NettyBackend.grpcMessage("over tls"));
            assertThat(client.decode(frames.get(2)).get("grpc-status")).hasToString("0");
        }
    }
}
