package dev.usher.protocol;

import io.netty.buffer.ByteBuf;

/** Finds obs-fold in the head at the start of a buffer: a line feed followed by a space or tab, before the blank line. */
final class ObsFold {
    private ObsFold() {
    }

    /** True when the head that starts at the reader index folds a line; looks at no more than {@code limit} bytes. */
    static boolean find(ByteBuf buf, int limit) {
        int start = buf.readerIndex();
        int end = Math.min(buf.writerIndex(), start + limit);
        int i = start;
        // Empty lines before the request line are allowed (RFC 9112 §2.2) and are not folds.
        while (i < end && (buf.getByte(i) == '\r' || buf.getByte(i) == '\n')) {
            i++;
        }
        for (; i < end - 1; i++) {
            if (buf.getByte(i) != '\n') {
                continue;
            }
            byte next = buf.getByte(i + 1);
            if (next == ' ' || next == '\t') {
                return true;
            }
            if (next == '\r' || next == '\n') {
                return false; // the blank line: end of the head
            }
        }
        return false;
    }
}
