package dev.usher.admin;

import dev.usher.config.ListenAddress;
import dev.usher.net.Transport;
import io.netty.channel.EventLoopGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The web UI's files over a real admin listener: types, CSP and the other headers, and no way out of the folder. */
class StaticFilesTest {
    static EventLoopGroup loops;
    static AdminListener admin;

    @BeforeAll
    static void start() throws Exception {
        Transport transport = Transport.best();
        loops = transport.newGroup(1, "static-test");
        admin = AdminListener.bind(new ListenAddress("127.0.0.1", 0), transport, loops, () -> null, () -> null, null,
                () -> null, List::of, java.util.Map::of, () -> null, "dev/usher/admin/testui/");
        admin.startAccepting();
    }

    @AfterAll
    static void stop() {
        admin.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    static String get(String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", admin.address().getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void servesIndexAndFilesWithTheirTypesAndAStrictPolicy() throws Exception {
        String index = get("/");
        assertThat(index).startsWith("HTTP/1.1 200").contains("content-type: text/html; charset=utf-8")
                .contains("Content-Security-Policy: default-src 'self'; img-src 'self' data:; style-src 'self'; "
                        + "script-src 'self'; frame-ancestors 'none'")
                .contains("X-Content-Type-Options: nosniff").contains("Cache-Control: no-cache")
                .contains("<title>test UI</title>");
        assertThat(get("/ui/app.js")).startsWith("HTTP/1.1 200").contains("text/javascript; charset=utf-8")
                .contains("export const ok");
        assertThat(get("/ui/app.css")).contains("content-type: text/css; charset=utf-8");
    }

    @Test
    void refusesNamesOutsideTheFolderAndUnknownOnes() throws Exception {
        assertThat(get("/ui/../StaticFilesTest.class")).startsWith("HTTP/1.1 404");
        assertThat(get("/ui/%2e%2e/x.js")).startsWith("HTTP/1.1 404");
        assertThat(get("/ui/nope.js")).startsWith("HTTP/1.1 404");
        assertThat(get("/ui/app")).startsWith("HTTP/1.1 404");
    }
}
