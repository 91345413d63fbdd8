package dev.usher.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;

/** What an embedded channel wrote, for the benchmarks that drive one. */
public final class Outbound {
    private Outbound() {
    }

    /** Takes and releases everything {@code channel} wrote; returns how many bytes of it were buffers. */
    public static int release(EmbeddedChannel channel) {
        int bytes = 0;
        Object out;
        while ((out = channel.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                bytes += buf.readableBytes();
            }
            ReferenceCountUtil.release(out);
        }
        return bytes;
    }
}
