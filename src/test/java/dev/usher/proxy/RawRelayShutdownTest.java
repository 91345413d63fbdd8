package dev.usher.proxy;

import dev.usher.net.DrainEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The websocket relay at shutdown: the close frame (1001) goes to the client only at a frame boundary of the
 * backend's stream, never inside a frame, and the backend connection is closed then.
 */
class RawRelayShutdownTest {
    private static final byte[] GOING_AWAY = {(byte) 0x88, 0x02, 0x03, (byte) 0xE9};

    /** A client channel and a backend channel relaying to each other, as after a 101. */
    private static EmbeddedChannel[] pair(boolean websocket) {
        EmbeddedChannel client = new EmbeddedChannel();
        EmbeddedChannel backend = new EmbeddedChannel();
        client.pipeline().addLast("relay", new RawRelay(backend));
        backend.pipeline().addLast("relay", new RawRelay(client, websocket));
        return new EmbeddedChannel[]{client, backend};
    }

    private static byte[] outbound(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf buf;
        while ((buf = ch.readOutbound()) != null) {
            byte[] b = new byte[buf.readableBytes()];
            buf.readBytes(b);
            buf.release();
            out.writeBytes(b);
        }
        return out.toByteArray();
    }

    private static byte[] frame(int length) {
        // An unmasked binary frame with a 16-bit extended length (server to client).
        byte[] f = new byte[4 + length];
        f[0] = (byte) 0x82;
        f[1] = 126;
        f[2] = (byte) (length >> 8);
        f[3] = (byte) length;
        for (int i = 0; i < length; i++) {
            f[4 + i] = (byte) i;
        }
        return f;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @Test
    void betweenFramesTheCloseFrameGoesOutAtOnceAndTheBackendIsClosed() {
        EmbeddedChannel[] pair = pair(true);
        EmbeddedChannel client = pair[0], backend = pair[1];
        byte[] whole = frame(300);
        backend.writeInbound(Unpooled.wrappedBuffer(whole));
        client.pipeline().fireUserEventTriggered(new DrainEvent());
        assertThat(outbound(client)).isEqualTo(concat(whole, GOING_AWAY));
        assertThat(backend.isActive()).isFalse();
        assertThat(client.isActive()).as("open until the client answers").isTrue();
        client.writeInbound(Unpooled.wrappedBuffer(new byte[]{(byte) 0x88, (byte) 0x82, 0, 0, 0, 0, 3, (byte) 0xE9}));
        assertThat(client.isActive()).as("closed once the client answered").isFalse();
    }

    @Test
    void inTheMiddleOfAFrameTheCloseFrameWaitsForItsEnd() {
        EmbeddedChannel[] pair = pair(true);
        EmbeddedChannel client = pair[0], backend = pair[1];
        byte[] first = frame(1000);
        byte[] second = frame(10);
        backend.writeInbound(Unpooled.wrappedBuffer(first, 0, 2)); // not even the whole header
        DrainEvent drain = new DrainEvent();
        client.pipeline().fireUserEventTriggered(drain);
        assertThat(drain.upgraded()).isTrue();
        assertThat(outbound(client)).hasSize(2);
        assertThat(backend.isActive()).isTrue();
        backend.writeInbound(Unpooled.wrappedBuffer(first, 2, 500));
        assertThat(outbound(client)).hasSize(500);
        // The rest of the frame and the next one arrive together: the close frame goes between them.
        backend.writeInbound(Unpooled.wrappedBuffer(concat(java.util.Arrays.copyOfRange(first, 502, first.length),
                second)));
        assertThat(outbound(client)).isEqualTo(concat(java.util.Arrays.copyOfRange(first, 502, first.length),
                GOING_AWAY));
        assertThat(backend.isActive()).isFalse();
    }

    @Test
    void aClientThatNeverAnswersIsClosedSoonAfter() throws Exception {
        EmbeddedChannel[] pair = pair(true);
        EmbeddedChannel client = pair[0];
        client.pipeline().fireUserEventTriggered(new DrainEvent());
        assertThat(outbound(client)).isEqualTo(GOING_AWAY);
        Thread.sleep(RawRelay.CLOSE_REPLY_MILLIS + 100);
        client.runPendingTasks();
        assertThat(client.isActive()).isFalse();
    }

    @Test
    void anUpgradeToAnotherProtocolIsClosedAtOnceWithNothingWritten() {
        EmbeddedChannel[] pair = pair(false);
        EmbeddedChannel client = pair[0], backend = pair[1];
        client.pipeline().fireUserEventTriggered(new DrainEvent());
        assertThat(outbound(client)).isEmpty();
        assertThat(client.isActive()).isFalse();
        assertThat(backend.isActive()).isFalse();
    }

    @Test
    void framesWithEveryLengthFormAreFollowed() {
        WebSocketFrames frames = new WebSocketFrames();
        byte[] small = {(byte) 0x81, 3, 'a', 'b', 'c'};
        byte[] masked = {(byte) 0x81, (byte) 0x81, 9, 9, 9, 9, 'x'};
        byte[] large = new byte[10 + 70_000];
        large[0] = (byte) 0x82;
        large[1] = 127;
        large[7] = (byte) (70_000 >> 16);
        large[8] = (byte) (70_000 >> 8);
        large[9] = (byte) 70_000;
        byte[] all = concat(small, masked, large, new byte[]{(byte) 0x88, 0});
        // Byte by byte: a boundary exactly after each frame.
        int boundaries = 0;
        for (byte b : all) {
            frames.advance(Unpooled.wrappedBuffer(new byte[]{b}), false);
            boundaries += frames.atBoundary() ? 1 : 0;
        }
        assertThat(boundaries).isEqualTo(4);
        assertThat(frames.closeSeen()).isTrue();
        WebSocketFrames again = new WebSocketFrames();
        assertThat(again.advance(Unpooled.wrappedBuffer(all), true)).isEqualTo(small.length);
    }
}
