package dev.usher.it;

import dev.usher.testing.RunningUsher;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.Test;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code Expect: 100-continue} reaches the backend, whose 100 Continue reaches the client before the body is sent. */
class ExpectContinueTest {

    @Test
    void clientGets100ContinueThenTheFinalAnswer() throws Exception {
        try (Whoami backend = Whoami.start("127.0.0.1", 0, "b");
             RunningUsher usher = RunningUsher.start("sites:\n  app.example.com: 127.0.0.1:" + backend.port() + "\n");
             Socket s = new Socket("127.0.0.1", usher.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write(("POST /echo HTTP/1.1\r\nHost: app.example.com\r\nContent-Length: 5\r\n"
                    + "Expect: 100-continue\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            // Nothing of the body has been sent: the interim answer must come first.
            assertThat(WebsocketTest.readHead(in)).startsWith("HTTP/1.1 100 Continue");
            s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
            String head = WebsocketTest.readHead(in);
            assertThat(head).startsWith("HTTP/1.1 200");
            assertThat(new String(in.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
        }
    }
}
