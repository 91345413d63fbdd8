package dev.usher.protocol;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;

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
final class CompressZstdEncoder extends CompressStreamEncoder {
    static final int WINDOW_LOG = 19;

    private final int level;
    private ZstdCompressCtx zstd;

    CompressZstdEncoder(int level) {
        super("zstd");
        this.level = level;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        zstd = new ZstdCompressCtx().setLevel(level).setWindowLog(WINDOW_LOG).setChecksum(false);
    }

    @Override
    boolean open() {
        return zstd != null;
    }

    @Override
    int outputBound(int length) {
        return bound(length);
    }

    @Override
    void compressPiece(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
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

    @Override
    int endBound() {
        return 64;
    }

    /** The epilogue of a streamed frame: a few bytes. */
    @Override
    void end(ByteBuf out) {
        // A private view of Netty's shared empty direct buffer: zstd wants a direct source even when empty.
        compress(Unpooled.EMPTY_BUFFER.nioBuffer().duplicate(), out, EndDirective.END);
    }

    @Override
    void free() {
        if (zstd != null) {
            zstd.close();
            zstd = null;
        }
    }
}
