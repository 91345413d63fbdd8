package dev.usher.protocol;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.MessageToByteEncoder;

import java.nio.ByteBuffer;

/**
 * One zstd frame for one response body, streamed: each piece written is compressed and flushed at once (so a slow
 * stream such as server-sent events reaches the client piece by piece), and the frame is ended when the channel
 * is closed, which {@code HttpContentEncoder} does at the body's last piece.
 *
 * <p>Why not Netty's {@code ZstdEncoder}: it compresses every piece as a separate frame with a fresh context, so
 * nothing learnt from one piece helps the next; proxied bodies arrive in pieces of whatever one socket read gave
 * (often a few KiB), which costs it much of zstd's ratio. Here one context keeps its window across pieces.
 *
 * <p>Memory: the window is capped at 512 KiB (zstd's level 3 would take 2 MiB for a body of unknown length), which
 * keeps a stream's native state near 2 MiB and loses little on web-sized bodies. The context is native memory, so
 * it is freed on close and on removal, whichever comes first.
 *
 * <p>Only loaded once {@code io.netty.handler.codec.compression.Zstd.isAvailable()} said the library works.
 */
final class CompressZstdEncoder extends MessageToByteEncoder<ByteBuf> {
    static final int WINDOW_LOG = 19;

    private final int level;
    private ZstdCompressCtx zstd;

    CompressZstdEncoder(int level) {
        super(ByteBuf.class, true);
        this.level = level;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        zstd = new ZstdCompressCtx().setLevel(level).setWindowLog(WINDOW_LOG).setChecksum(false);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        // The native stream API wants direct memory on both sides.
        return ctx.alloc().directBuffer(bound(msg.readableBytes()));
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
        if (zstd == null) {
            throw new IllegalStateException("zstd stream already ended");
        }
        if (!in.isReadable()) {
            return;
        }
        ByteBuf source = in;
        if (!in.isDirect() || in.nioBufferCount() != 1) {
            source = ctx.alloc().directBuffer(in.readableBytes());
            source.writeBytes(in, in.readerIndex(), in.readableBytes());
        }
        try {
            compress(source.nioBuffer(source.readerIndex(), source.readableBytes()), out, EndDirective.FLUSH);
        } finally {
            if (source != in) {
                source.release();
            }
        }
        in.skipBytes(in.readableBytes());
    }

    /** Feeds {@code src} to the stream and collects its output until zstd says all of it is out. */
    private void compress(ByteBuffer src, ByteBuf out, EndDirective directive) {
        boolean done;
        do {
            out.ensureWritable(bound(src.remaining()));
            ByteBuffer dst = out.nioBuffer(out.writerIndex(), out.writableBytes());
            done = zstd.compressDirectByteBufferStream(dst, src, directive);
            out.writerIndex(out.writerIndex() + dst.position());
        } while (!done || src.hasRemaining());
    }

    private static int bound(int length) {
        // Room for a whole flushed block plus frame and block headers; the loop above grows it if ever needed.
        return (int) Math.min(Zstd.compressBound(length) + 64, Integer.MAX_VALUE - 8);
    }

    /** Ends the frame (the epilogue of a streamed frame is a few bytes) and frees the context. */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        if (zstd != null) {
            ByteBuf epilogue = ctx.alloc().directBuffer(64);
            try {
                // A private view of Netty's shared empty direct buffer: zstd wants a direct source even when empty.
                compress(Unpooled.EMPTY_BUFFER.nioBuffer().duplicate(), epilogue, EndDirective.END);
            } catch (RuntimeException e) {
                epilogue.release();
                free();
                throw e;
            }
            free();
            ctx.writeAndFlush(epilogue);
        }
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        free();
        super.handlerRemoved(ctx);
    }

    private void free() {
        if (zstd != null) {
            zstd.close();
            zstd = null;
        }
    }
}
