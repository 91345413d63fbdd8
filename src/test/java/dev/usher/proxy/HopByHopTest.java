package dev.usher.proxy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class HopByHopTest {
    private static HttpHeaders headers(String... namesAndValues) {
        HttpHeaders h = new DefaultHttpHeaders();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return h;
    }

    @Test
    void removesTheFixedListAndEveryNameInEachConnectionHeader() {
        HttpHeaders h = headers("Host", "a", "Connection", "keep-alive, X-One ,,\tx-two", "connection", "X-Three",
                "Keep-Alive", "timeout=5", "TE", "trailers", "X-One", "1", "X-Two", "2", "x-three", "3",
                "Accept", "*/*", "Proxy-Authorization", "Basic x");
        HopByHop.strip(h);
        assertThat(h.names()).containsExactlyInAnyOrder("Host", "Accept");
    }

    @Test
    void removesAHeaderNamedCloseAndMatchesTokensIgnoringCase() {
        HttpHeaders h = headers("Connection", "CLOSE, Upgrade", "Close", "x", "Upgrade", "websocket", "Host", "a");
        HopByHop.strip(h);
        assertThat(h.names()).containsExactly("Host");
    }

    @Test
    void keepsContentLengthAndHostEvenWhenConnectionNamesThem() {
        HttpHeaders h = headers("Connection", "Content-Length, HOST, connection", "Content-Length", "3", "Host", "a");
        HopByHop.strip(h);
        assertThat(h.names()).containsExactlyInAnyOrder("Content-Length", "Host");
    }

    /** Removing named headers while Connection's values are being read must not skip or revisit any of them. */
    @Test
    void removesTheSameHeadersAsReadingEveryConnectionValueFirst() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            HttpHeaders h = new DefaultHttpHeaders();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                names.add("x-h" + random.nextInt(60));
                h.add(names.get(i), "v");
            }
            h.add("Host", "a");
            for (int c = 0; c < 3; c++) {
                StringBuilder value = new StringBuilder();
                for (int t = 0; t < 6; t++) {
                    value.append(t == 0 ? "" : random.nextBoolean() ? ", " : ",")
                            .append(names.get(random.nextInt(names.size())).toUpperCase());
                }
                h.add("Connection", value);
            }
            HttpHeaders expected = h.copy();
            for (String value : h.getAll("Connection")) {
                for (String token : value.split(",")) {
                    expected.remove(token.trim());
                }
            }
            expected.remove("Connection");
            HopByHop.strip(h);
            assertThat(h.names()).as("round %d", round).containsExactlyInAnyOrderElementsOf(expected.names());
        }
    }
}
