package dev.usher.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * One gzip member (RFC 1952) for one response body, streamed: each piece written is compressed and flushed at once
 * (a sync flush, so a slow stream reaches the client piece by piece), and the member is ended when the channel is
 * closed, which {@code HttpContentEncoder} does at the body's last piece.
 *
 * <p>Why not Netty's {@code JdkZlibEncoder}: it makes a new {@link Deflater} per response (about 260 KiB of native
 * memory allocated and freed again) and copies every piece into a heap array and the output into another one, which
 * is copied once more to reach the socket or the TLS engine. Here the
 * Deflater is borrowed from {@link CompressDeflaters} and given back at the end, and it reads and writes direct
 * memory in place. The bytes on the wire are the same: a 10-byte header, sync-flushed deflate blocks, the trailer.
 */
final class CompressGzipEncoder extends CompressStreamEncoder {
    /** Magic, method deflate, no flags, no time, no extra flags, OS 0: as Netty's encoder wrote it. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, 0};
    /** CRC-32 and length of the input, little-endian. */
    private static final int TRAILER_LENGTH = 8;
    private static final byte[] NO_INPUT = new byte[0];

    private final CompressDeflaters deflaters;
    private final CRC32 crc = new CRC32();
    private Deflater deflater;
    private boolean headerWritten;

    CompressGzipEncoder(CompressDeflaters deflaters) {
        super("gzip");
        this.deflaters = deflaters;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deflater = deflaters.take();
    }

    @Override
    boolean open() {
        return deflater != null;
    }

    @Override
    int outputBound(int length) {
        // zlib's bound for a stored fallback (5 bytes per 16 KiB block) plus a sync flush's empty block and slack,
        // and the header on the first piece.
        return length + (length >> 12) + (length >> 14) + 32 + HEADER.length;
    }

    @Override
    void compressPiece(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
        writeHeaderOnce(out);
        int count = in.nioBufferCount();
        if (count == 1) {
            compress(in.nioBuffer(), out);
        } else {
            // A composite or a buffer without a single NIO view: piece by piece, or as one copy when it has none.
            ByteBuffer[] parts = count > 1 ? in.nioBuffers() : new ByteBuffer[] {ByteBuffer.wrap(readAll(in))};
            for (ByteBuffer part : parts) {
                compress(part, out);
            }
        }
    }

    private static byte[] readAll(ByteBuf in) {
        byte[] copy = new byte[in.readableBytes()];
        in.getBytes(in.readerIndex(), copy);
        return copy;
    }

    private void writeHeaderOnce(ByteBuf out) {
        if (!headerWritten) {
            headerWritten = true;
            out.writeBytes(HEADER);
        }
    }

    /** Feeds {@code src} to the stream and sync-flushes it: all its bytes are in {@code out} afterwards. */
    private void compress(ByteBuffer src, ByteBuf out) {
        crc.update(src.duplicate());
        deflater.setInput(src);
        drain(out, Deflater.SYNC_FLUSH);
        deflater.setInput(NO_INPUT); // all consumed: hold no view of a buffer that is released after this
    }

    /** Collects the Deflater's output until the flush (or, after {@code finish()}, the stream) is complete. */
    private void drain(ByteBuf out, int flush) {
        for (;;) {
            out.ensureWritable(64);
            int room = out.writableBytes();
            ByteBuffer dst = out.nioBuffer(out.writerIndex(), room);
            int written = deflater.deflate(dst, flush);
            out.writerIndex(out.writerIndex() + written);
            // A sync flush is complete when it left room over; a finishing stream when zlib says it ended.
            if (flush == Deflater.SYNC_FLUSH ? written < room : deflater.finished()) {
                return;
            }
        }
    }

    @Override
    int endBound() {
        return HEADER.length + 64 + TRAILER_LENGTH;
    }

    /** The final block and the trailer; the header too when the body was empty (still a whole gzip member). */
    @Override
    void end(ByteBuf out) {
        writeHeaderOnce(out);
        deflater.finish();
        drain(out, Deflater.NO_FLUSH);
        out.writeIntLE((int) crc.getValue());
        out.writeIntLE((int) deflater.getBytesRead()); // ISIZE: the length modulo 2^32
    }

    @Override
    void free() {
        if (deflater != null) {
            deflaters.giveBack(deflater);
            deflater = null;
        }
    }
}
