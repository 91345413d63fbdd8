package dev.usher.protocol;

import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps the compression streams open at once across all connections. Each open stream holds native memory until its
 * body ends — about 1.2 MiB for zstd, 260 KiB for gzip — and a client reading a long text response slowly keeps it
 * open; without a cap, 10,000 such clients would pin gigabytes. Over the cap a response goes out uncompressed.
 * One instance is shared by every listener (plain HTTP and HTTPS, HTTP/1.1 and HTTP/2). Thread-safe.
 */
public final class CompressBudget {
    /** About 75 MiB of zstd state at most. */
    static final int ZSTD_STREAMS = 64;
    /** About 65 MiB of gzip state at most. */
    static final int GZIP_STREAMS = 256;

    private final AtomicInteger zstd = new AtomicInteger();
    private final CompressDeflaters deflaters = new CompressDeflaters(ResponseCompressor.GZIP_LEVEL);
    private final AtomicInteger gzip = new AtomicInteger();

    /** A budget with nothing taken yet. */
    public CompressBudget() {
    }

    /** Takes a stream of {@code coding}; false when none is left (the response then goes out as it is). */
    boolean take(String coding) {
        AtomicInteger open = counter(coding);
        int max = coding.equals(CompressAcceptEncoding.ZSTD) ? ZSTD_STREAMS : GZIP_STREAMS;
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            return false;
        }
        return true;
    }

    /** A handler that gives the stream back when the encoder's channel is torn down (body done or connection gone). */
    ChannelHandlerAdapter releaser(String coding) {
        AtomicInteger open = counter(coding);
        return new ChannelHandlerAdapter() {
            private boolean given;

            @Override
            public void handlerRemoved(ChannelHandlerContext ctx) {
                if (!given) {
                    given = true;
                    open.decrementAndGet();
                }
            }
        };
    }

    /** The gzip streams' Deflaters, reused from one response to the next. */
    CompressDeflaters deflaters() {
        return deflaters;
    }

    /** Streams open now, for tests. */
    int open(String coding) {
        return counter(coding).get();
    }

    private AtomicInteger counter(String coding) {
        return coding.equals(CompressAcceptEncoding.ZSTD) ? zstd : gzip;
    }
}
