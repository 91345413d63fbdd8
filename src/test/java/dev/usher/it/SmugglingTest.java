package dev.usher.it;

import dev.usher.testing.RawHttp;
import dev.usher.testing.RawHttp;
import dev.usher.testing.RunningUsher;
import dev.usher.testing.Servers;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every request shape that two HTTP parsers could frame differently is refused with 400 and the connection closed,
 * and the backend sees nothing of it.
 */
class SmugglingTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static Whoami backend;
    static RunningUsher usher;

    @BeforeAll
    static void start() throws Exception {
        backend = servers.backend("b");
        usher = servers.usher("""
                limits: {header_size: 4KiB}
                sites:
                  app.example.com: 127.0.0.1:%d
                  small.example.com: {to: "127.0.0.1:%d", max_body: 1KiB}
                """.formatted(backend.port(), backend.port()));
    }

    static Stream<Arguments> badRequests() {
        String h = "Host: app.example.com\r\n";
        return Stream.of(
                Arguments.of("Content-Length with Transfer-Encoding",
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("two different Content-Lengths",
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 4\r\nContent-Length: 5\r\n\r\nabcde", 400),
                Arguments.of("Content-Length with a sign",
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: +4\r\n\r\nabcd", 400),
                Arguments.of("bad chunk size",
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400),
                Arguments.of("chunked not the final coding",
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("unknown transfer coding",
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("obs-fold",
                        "GET / HTTP/1.1\r\n" + h + "X-Folded: a\r\n b\r\n\r\n", 400),
                Arguments.of("obs-fold hiding Transfer-Encoding",
                        "POST / HTTP/1.1\r\n" + h + "X-Foo: bar\r\n\tTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc", 400),
                Arguments.of("space before colon",
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400),
                Arguments.of("bare LF line endings",
                        "GET / HTTP/1.1\n" + "Host: app.example.com\n\n", 400),
                Arguments.of("two Host headers",
                        "GET / HTTP/1.1\r\n" + h + "Host: other.example.com\r\n\r\n", 400),
                Arguments.of("HTTP/1.1 without Host",
                        "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400),
                Arguments.of("headers too large",
                        "GET / HTTP/1.1\r\n" + h + "X-Big: " + "a".repeat(5000) + "\r\n\r\n", 431),
                Arguments.of("request line too long",
                        "GET /" + "a".repeat(9000) + " HTTP/1.1\r\n" + h + "\r\n", 414),
                Arguments.of("HTTP/9.9 (read as HTTP/1.1, it would be framed by guesswork)",
                        "GET / HTTP/9.9\r\n" + h + "\r\n", 505),
                Arguments.of("HTTP/2.0 in an HTTP/1 request line",
                        "GET / HTTP/2.0\r\n" + h + "\r\n", 505),
                Arguments.of("HTTP/1.9",
                        "GET / HTTP/1.9\r\n" + h + "\r\n", 505),
                Arguments.of("declared body over the site's limit",
                        "POST / HTTP/1.1\r\nHost: small.example.com\r\nContent-Length: 2000\r\n\r\n", 413));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void refusesAndForwardsNothing(String shape, String request, int status) throws Exception {
        long before = backend.requestsSeen();
        try (RawHttp http = new RawHttp(usher.port())) {
            RawHttp.Response r = http.send(request).read();
            assertThat(r).as(shape).isNotNull();
            assertThat(r.status()).as(shape).isEqualTo(status);
            assertThat(r.header("connection")).as(shape).isEqualTo("close");
            assertThat(http.closedByServer()).as(shape).isTrue();
        }
        assertThat(backend.requestsSeen()).as(shape + ": requests the backend saw").isEqualTo(before);
    }

    @ParameterizedTest(name = "chunked body over the limit")
    @MethodSource("chunkSizes")
    void streamedBodyOverTheLimitGets413(int chunk) throws Exception {
        try (RawHttp http = new RawHttp(usher.port())) {
            StringBuilder req = new StringBuilder("POST /echo HTTP/1.1\r\nHost: small.example.com\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n");
            for (int sent = 0; sent < 2048; sent += chunk) {
                req.append(Integer.toHexString(chunk)).append("\r\n").append("a".repeat(chunk)).append("\r\n");
            }
            req.append("0\r\n\r\n");
            RawHttp.Response r = http.send(req.toString()).read();
            assertThat(r.status()).isEqualTo(413);
        }
    }

    static Stream<Integer> chunkSizes() {
        return Stream.of(256);
    }
}
