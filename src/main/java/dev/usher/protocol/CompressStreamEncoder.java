package dev.usher.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * What Usher's streamed response compressors ({@link CompressGzipEncoder}, {@link CompressZstdEncoder}) share: one
 * compressed stream per response body, each piece compressed and flushed into direct memory as it is written, the
 * stream ended when the channel is closed (which {@code HttpContentEncoder} does at the body's last piece), and its
 * native state freed on close or removal, whichever comes first.
 */
abstract class CompressStreamEncoder extends MessageToByteEncoder<ByteBuf> {
    private final String format;

    /** @param format the stream's name for error messages ("gzip", "zstd") */
    CompressStreamEncoder(String format) {
        super(ByteBuf.class, true);
        this.format = format;
    }

    /** True while the stream holds its native state: from {@code handlerAdded} until {@link #free()}. */
    abstract boolean open();

    /** Room the compressed output of a piece of {@code length} bytes may take (the encoder grows it if ever needed). */
    abstract int outputBound(int length);

    /** Compresses and flushes the readable bytes of {@code in} (at least one) into {@code out}, leaving {@code in} as it is. */
    abstract void compressPiece(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out);

    /** Room the end of the stream takes. */
    abstract int endBound();

    /** Writes the end of the stream into {@code out}. */
    abstract void end(ByteBuf out);

    /** Gives the native state back; does nothing once it is gone. */
    abstract void free();

    @Override
    protected final ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        // The native compressors read and write direct memory in place.
        return ctx.alloc().directBuffer(outputBound(msg.readableBytes()));
    }

    @Override
    protected final void encode(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
        if (!open()) {
            throw new IllegalStateException(format + " stream already ended");
        }
        if (!in.isReadable()) {
            return;
        }
        compressPiece(ctx, in, out);
        in.skipBytes(in.readableBytes());
    }

    /** Ends the stream (a few bytes) and frees its state. */
    @Override
    public final void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (open()) {
            ByteBuf end = ctx.alloc().directBuffer(endBound());
            try {
                end(end);
            } catch (RuntimeException e) {
                end.release();
                free();
                throw e;
            }
            free();
            ctx.writeAndFlush(end);
        }
        ctx.close(promise);
    }

    @Override
    public final void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        free();
        super.handlerRemoved(ctx);
    }
}
