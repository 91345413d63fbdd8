package dev.usher.proxy;

import dev.usher.bench.Outbound;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * One request-response turn of a keep-alive HTTP/1.1 client connection through the whole proxy path: the client's
 * bytes decoded, {@code Http1ProxyHandler}, {@code RequestDispatch}, a {@code ProxyExchange} on a pooled backend
 * connection (the real {@code UpstreamPool}, its HTTP client codec and {@code UpstreamConnection}), the backend's
 * answer re-framed and encoded to the client. Both connections are {@link EmbeddedSocket}s of the test sources
 * ({@link ProxyHarness}), so the benchmark thread is their event loop and no socket is involved: what is measured
 * is Usher's per-request work plus Netty's codecs and the embedded channels' own bookkeeping, which does not change
 * with Usher's code (compare B/op before and after a change to the proxy path).
 *
 * <p>{@code request}: {@code get} (a bodiless GET, 5-byte answer), {@code post} (a 1 KiB body, the same answer).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProxyTurnBenchmark {
    @Param({"get", "post"})
    String request;

    private ProxyHarness harness;
    private EmbeddedChannel client;
    private EmbeddedChannel backend;
    private ByteBuf requestBytes;
    private ByteBuf responseBytes;

    @Setup
    public void setUp() throws Exception {
        harness = new ProxyHarness("  app.example.com: 127.0.0.1:8080\n");
        client = harness.client();
        String text = request.equals("get")
                ? "GET /dashboard HTTP/1.1\r\nHost: app.example.com\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n"
                : "POST /api/items HTTP/1.1\r\nHost: app.example.com\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1024\r\n\r\n" + "x".repeat(1024);
        requestBytes = bytes(text);
        responseBytes = bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello");
        client.writeInbound(requestBytes.duplicate());
        backend = EmbeddedSocket.nextMade();
        if (backend == null) {
            throw new IllegalStateException("no backend connection was made");
        }
        if (turnRest() == 0) {
            throw new IllegalStateException("no answer");
        }
    }

    @TearDown
    public void tearDown() {
        client.finishAndReleaseAll();
        backend.finishAndReleaseAll();
        harness.close();
    }

    private static ByteBuf bytes(String text) {
        return Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(text.getBytes(StandardCharsets.ISO_8859_1)));
    }

    @Benchmark
    public int turn() {
        client.writeInbound(requestBytes.duplicate());
        return turnRest();
    }

    /** The backend takes the request and answers; returns the bytes the client got. */
    private int turnRest() {
        Outbound.release(backend);
        backend.writeInbound(responseBytes.duplicate());
        return Outbound.release(client);
    }
}
