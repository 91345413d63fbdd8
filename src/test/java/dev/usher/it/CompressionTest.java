package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Responses are compressed on the way through when the client accepts it and the site allows it. */
class CompressionTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("""
                sites:
                  zip.example.com: 127.0.0.1:%1$d
                  nozip.example.com: {to: 127.0.0.1:%1$d, gzip: false}
                """.formatted(backend.port()));
    }

    /** A large, compressible text body sent to /echo, which streams it back as text/plain. */
    static byte[] text(int size) {
        StringBuilder sb = new StringBuilder(size);
        int line = 0;
        while (sb.length() < size) {
            sb.append("line ").append(line++).append(": the quick brown fox jumps over the lazy dog\n");
        }
        return sb.substring(0, size).getBytes(StandardCharsets.US_ASCII);
    }

    static RawHttp.Response echo(String host, byte[] body, String acceptEncoding) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            http.send("POST /echo HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: text/plain\r\nContent-Length: "
                    + body.length + "\r\n" + (acceptEncoding == null ? "" : "Accept-Encoding: " + acceptEncoding + "\r\n")
                    + "\r\n");
            http.send(body);
            return http.read();
        }
    }

    @Test
    void gzipRoundTripsALargeStreamedBodyByteExact() throws Exception {
        byte[] body = text(8 * 1024 * 1024);
        RawHttp.Response r = echo("zip.example.com", body, "gzip, deflate");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("content-encoding")).isIn("gzip", "zstd");
        assertThat(r.header("vary")).containsIgnoringCase("accept-encoding");
        byte[] compressed = r.body().getBytes(StandardCharsets.ISO_8859_1);
        assertThat(compressed.length).isLessThan(body.length / 4);
        byte[] plain;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed))) {
            plain = in.readAllBytes();
        }
        assertThat(sha(plain)).isEqualTo(sha(body));
    }

    @Test
    void notCompressedWhenTheClientDoesNotAskOrTheSiteSaysNo() throws Exception {
        byte[] body = text(64 * 1024);
        RawHttp.Response plain = echo("zip.example.com", body, null);
        assertThat(plain.header("content-encoding")).isNull();
        assertThat(plain.body().getBytes(StandardCharsets.ISO_8859_1)).isEqualTo(body);
        RawHttp.Response off = echo("nozip.example.com", body, "gzip");
        assertThat(off.header("content-encoding")).isNull();
        assertThat(off.body().getBytes(StandardCharsets.ISO_8859_1)).isEqualTo(body);
    }

    @Test
    void binaryBodiesAreLeftAlone() throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send("GET /data?size=100000 HTTP/1.1\r\nHost: zip.example.com\r\n"
                    + "Accept-Encoding: gzip\r\n\r\n").read();
            assertThat(r.header("content-encoding")).isNull();
            assertThat(r.body()).hasSize(100000);
        }
    }

    @Test
    void websocketsStillWorkOnACompressingSite() throws Exception {
        try (Socket client = new Socket("127.0.0.1", usher.port())) {
            client.setSoTimeout(5000);
            client.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: zip.example.com\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nAccept-Encoding: gzip\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(WebsocketTest.readHead(client.getInputStream())).startsWith("HTTP/1.1 101");
            // A masked text frame "hi"; the echo comes back unmasked.
            client.getOutputStream().write(new byte[] {(byte) 0x81, (byte) 0x82, 1, 2, 3, 4, 'h' ^ 1, 'i' ^ 2});
            byte[] frame = client.getInputStream().readNBytes(4);
            assertThat(frame).containsExactly((byte) 0x81, 2, 'h', 'i');
        }
    }

    static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
