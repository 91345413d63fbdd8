package dev.usher.protocol;

import dev.usher.config.Limits;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;

/**
 * Not a JMH benchmark: the server side's own CPU time per HTTPS response (BoringSSL TLS 1.3, Usher's HTTP/1.1 codec
 * and {@link ResponseCompressor}), measured with the thread's CPU clock so that other work on a busy machine does not
 * count. A client pipeline in the same thread sends GET requests and reads the answers; only the server's calls are
 * timed: decrypting and decoding the request, compressing, encoding and encrypting a 4,096-byte text/plain answer
 * (the shape of bench/run.sh's /text). Also counts buffers and TLS records per response. Used for BENCHMARKS.md,
 * "HTTPS + gzip, CPU per request, 2026-11-30".
 *
 * <pre>
 * openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout /tmp/k.pem -out /tmp/c.pem \
 *     -days 30 -subj /CN=bench.test
 * (cd bench/jmh && mvn -q -B package)
 * taskset -c 1 java -XX:+UseSerialGC -Dio.netty.allocator.type=unpooled --enable-native-access=ALL-UNNAMED \
 *     -cp target/usher.jar:bench/jmh/target/classes dev.usher.protocol.HttpsGzipCpu gzip /tmp/c.pem /tmp/k.pem
 * </pre>
 * The first argument is {@code gzip} (the request accepts gzip) or {@code identity}.
 */
public final class HttpsGzipCpu {
    private static final int RESPONSES = 20_000;
    private static final int ROUNDS = 6;

    private HttpsGzipCpu() {
    }

    public static void main(String[] args) throws Exception {
        boolean gzip = args[0].equals("gzip");
        byte[] body = text(4096);
        SslContext serverTls = SslContextBuilder.forServer(new File(args[1]), new File(args[2]))
                .sslProvider(SslProvider.OPENSSL).protocols("TLSv1.3").build();
        SslContext clientTls = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL)
                .trustManager(InsecureTrustManagerFactory.INSTANCE).protocols("TLSv1.3").build();
        EmbeddedChannel server = new EmbeddedChannel();
        server.pipeline().addLast(serverTls.newHandler(server.alloc()))
                .addLast(new Http1ServerCodec(Http1Initializer.decoderConfig(Limits.DEFAULTS)))
                .addLast(new ResponseCompressor(false, new CompressBudget()));
        EmbeddedChannel client = new EmbeddedChannel();
        client.pipeline().addLast(clientTls.newHandler(client.alloc(), "bench.test", 443))
                .addLast(new HttpClientCodec());
        for (int i = 0; i < 10; i++) { // the handshake
            pass(client, server);
            pass(server, client);
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < ROUNDS; round++) {
            long serverNanos = 0;
            long wire = 0;
            long buffers = 0;
            long records = 0;
            for (int i = 0; i < RESPONSES; i++) {
                DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET,
                        "/text");
                request.headers().set(HttpHeaderNames.HOST, "bench.test");
                if (gzip) {
                    request.headers().set(HttpHeaderNames.ACCEPT_ENCODING, "gzip");
                }
                client.writeOutbound(request);
                long start = cpu.getCurrentThreadCpuTime();
                pass(client, server);
                Object in;
                while ((in = server.readInbound()) != null) {
                    ReferenceCountUtil.release(in);
                }
                DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                        .set(HttpHeaderNames.CONTENT_LENGTH, body.length);
                server.write(head);
                server.writeAndFlush(new DefaultLastHttpContent(server.alloc().directBuffer(body.length)
                        .writeBytes(body)));
                serverNanos += cpu.getCurrentThreadCpuTime() - start;
                ByteBuf out;
                while ((out = server.readOutbound()) != null) {
                    buffers++;
                    wire += out.readableBytes();
                    for (int p = out.readerIndex(); p + 5 <= out.writerIndex(); p += 5 + out.getUnsignedShort(p + 3)) {
                        records++; // TLS record header: type, version, 16-bit length
                    }
                    client.writeInbound(out);
                }
                Object answer;
                while ((answer = client.readInbound()) != null) {
                    ReferenceCountUtil.release(answer);
                }
            }
            System.out.printf("%s: server %.2f us/response, %d wire bytes, %.2f buffers, %.2f TLS records%n",
                    args[0], serverNanos / 1e3 / RESPONSES, wire / RESPONSES, buffers / (double) RESPONSES,
                    records / (double) RESPONSES);
        }
    }

    private static void pass(EmbeddedChannel from, EmbeddedChannel to) {
        Object bytes;
        while ((bytes = from.readOutbound()) != null) {
            to.writeInbound(bytes);
        }
    }

    /** Lines of words and numbers like bench/run.sh's /text body (gzip -5 takes 4,096 bytes to about 900). */
    private static byte[] text(int length) {
        String[] words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november "
                + "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu proxy backend request "
                + "response header status").split(" ");
        StringBuilder s = new StringBuilder("Hostname: whoami01\n");
        for (int i = 1; s.length() < length; i++) {
            s.append(String.format("item-%04d id=%d", i, (i * 7919) % 10007));
            for (int j = 1; j <= 8; j++) {
                s.append(' ').append(words[(i * 7 + j * 11 + i / 5) % words.length]);
            }
            s.append(" size=").append((i * 37) % 1500).append('\n');
        }
        s.setLength(length - 1);
        return s.append('\n').toString().getBytes(StandardCharsets.US_ASCII);
    }
}
