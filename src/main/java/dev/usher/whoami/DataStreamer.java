package dev.usher.whoami;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * {@code /data?size=N}: streams N bytes of a fixed pattern with {@code Content-Length: N}, writing 64 KiB chunks
 * only while the channel is writable and resuming on writability changes, so memory use does not depend on N.
 *
 * <p>The pattern: the byte at offset {@code i} is {@code (byte) i}, that is 0x00, 0x01, … 0xFF repeating from
 * offset 0. Chunks are slices of one shared read-only buffer (an immutable constant).
 */
final class DataStreamer implements Exchange {
    /** Bytes per written chunk; a multiple of 256 so every chunk starts at pattern offset 0. */
    static final int CHUNK = 64 * 1024;
    /** Chunks written per event-loop turn before yielding, so one fast reader cannot starve other connections. */
    private static final int CHUNKS_PER_TURN = 16;
    private static final ByteBuf PATTERN = Unpooled.unreleasableBuffer(pattern().asReadOnly());

    private final ExchangeContext context;
    private final ChannelHandlerContext ctx;
    private final long size;
    private long remaining;
    private boolean started;
    private boolean finished;
    private boolean pumping;

    DataStreamer(ExchangeContext context, long size) {
        this.context = context;
        this.ctx = context.ctx();
        this.size = size;
        this.remaining = context.isHead() ? 0 : size;
    }

    /** The pattern byte at stream offset {@code offset}. */
    static byte patternByte(long offset) {
        return (byte) offset;
    }

    @Override
    public void content(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        content.release();
        if (last) {
            HttpResponse head = context.head(HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_OCTET_STREAM);
            head.headers().set(HttpHeaderNames.CONTENT_LENGTH, size);
            ctx.write(head).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            started = true;
            pump();
        }
    }

    @Override
    public void writabilityChanged() {
        if (started && ctx.channel().isWritable()) {
            pump();
        }
    }

    /**
     * Writes chunks while the channel stays writable. Re-entrant calls (a flush can fire a writability change
     * synchronously) are ignored; the loop re-checks writability after every flush, so no signal is lost.
     */
    private void pump() {
        if (pumping || finished || !ctx.channel().isActive()) {
            return;
        }
        pumping = true;
        try {
            int written = 0;
            while (remaining > 0 && ctx.channel().isWritable() && written < CHUNKS_PER_TURN) {
                int n = (int) Math.min(CHUNK, remaining);
                ctx.write(new DefaultHttpContent(PATTERN.slice(0, n))).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
                remaining -= n;
                written++;
                if (!ctx.channel().isWritable()) {
                    ctx.flush();
                }
            }
            if (remaining == 0) {
                finished = true;
                context.finish(ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT));
            } else {
                ctx.flush();
                if (ctx.channel().isWritable()) {
                    ctx.executor().execute(this::pump); // yielded after CHUNKS_PER_TURN; continue next turn
                }
            }
        } finally {
            pumping = false;
        }
    }

    private static ByteBuf pattern() {
        ByteBuf buf = Unpooled.directBuffer(CHUNK, CHUNK);
        for (int i = 0; i < CHUNK; i++) {
            buf.writeByte(patternByte(i));
        }
        return buf;
    }
}
