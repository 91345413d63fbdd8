package dev.usher.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The admin endpoint's whole-request deadline, on the clock of an embedded channel (no real waiting). */
class AdminRequestDeadlineTest {
    private static EmbeddedChannel channel() {
        AdminRequestDeadline deadline = new AdminRequestDeadline(AdminRequestDeadline.BASE);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(deadline, new HttpServerCodec(), deadline.head(), new HttpObjectAggregator(1 << 20),
                deadline.completion());
        return ch;
    }

    private static void send(EmbeddedChannel ch, String text) {
        ch.writeInbound(Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII));
        Object in;
        while ((in = ch.readInbound()) != null) {
            ReferenceCountUtil.release(in);
        }
    }

    private static void pass(EmbeddedChannel ch, long seconds) {
        ch.advanceTimeBy(seconds, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
    }

    @Test
    void aHeadTrickledByteByByteIsCutAtTheDeadline() {
        EmbeddedChannel ch = channel();
        pass(ch, 3600);
        assertThat(ch.isOpen()).as("idle before a request: the read timeout's business").isTrue();
        send(ch, "GET /health HTTP/1.1\r\nHost: localhost\r\n");
        for (int i = 0; i < 25; i++) {
            pass(ch, 1);
            send(ch, "X");
        }
        assertThat(ch.isOpen()).isTrue();
        pass(ch, 6);
        assertThat(ch.isOpen()).as("trickling does not extend the deadline").isFalse();
    }

    @Test
    void aWholeRequestDisarmsItAndALargeBodyGetsTimeToArrive() {
        EmbeddedChannel ch = channel();
        send(ch, "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
        pass(ch, 120);
        assertThat(ch.isOpen()).isTrue();
        send(ch, "POST /api/restore HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + 100 * 64 * 1024
                + "\r\n\r\nabc");
        pass(ch, 120);
        assertThat(ch.isOpen()).as("30 s + 100 s for a body of 100 × 64 KiB").isTrue();
        pass(ch, 11);
        assertThat(ch.isOpen()).isFalse();
    }
}
