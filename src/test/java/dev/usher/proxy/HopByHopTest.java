package dev.usher.proxy;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import org.junit.jupiter.api.Test;

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
}
