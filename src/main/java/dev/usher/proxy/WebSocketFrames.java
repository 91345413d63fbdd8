package dev.usher.proxy;

import io.netty.buffer.ByteBuf;

/**
 * Follows the frame boundaries of one direction of a websocket connection relayed as raw bytes (RFC 6455 §5.2),
 * without decoding or copying anything: it reads each frame header and skips the payload. Usher needs it to put a
 * frame of its own (a close frame at shutdown) into a stream it otherwise passes through untouched: a frame written
 * in the middle of another would corrupt both. The cost is a few byte reads per frame, none per payload byte.
 *
 * <p>Threading: confined to the relay's event loop.
 */
final class WebSocketFrames {
    /** Longest frame header: 2 bytes, an 8-byte extended length, a 4-byte masking key. */
    private static final int MAX_HEADER = 14;
    private static final int OPCODE_CLOSE = 0x8;

    private final byte[] header = new byte[MAX_HEADER];
    private int headerLength;
    /** Payload bytes of the current frame still to pass. */
    private long remaining;
    private boolean closeSeen;

    /** True between two frames: a frame of Usher's own may be written here. */
    boolean atBoundary() {
        return headerLength == 0 && remaining == 0;
    }

    /** True once a close frame passed: the endpoint that sent it starts the closing handshake itself. */
    boolean closeSeen() {
        return closeSeen;
    }

    /**
     * Passes over the readable bytes of {@code buf} (its indexes are not moved) and returns how many were passed:
     * all of them, or, when {@code stopAtBoundary}, those up to the first frame boundary reached, if one is.
     */
    int advance(ByteBuf buf, boolean stopAtBoundary) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        int i = start;
        while (i < end) {
            if (remaining > 0) {
                int take = (int) Math.min(remaining, end - i);
                remaining -= take;
                i += take;
            } else {
                header[headerLength++] = buf.getByte(i++);
                if (headerLength < 2 || headerLength < headerSize()) {
                    continue;
                }
                if ((header[0] & 0x0F) == OPCODE_CLOSE) {
                    closeSeen = true;
                }
                remaining = payloadLength();
                headerLength = 0;
            }
            if (stopAtBoundary && atBoundary()) {
                break;
            }
        }
        return i - start;
    }

    private int headerSize() {
        int length7 = header[1] & 0x7F;
        int extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
        int mask = (header[1] & 0x80) != 0 ? 4 : 0;
        return 2 + extended + mask;
    }

    private long payloadLength() {
        int length7 = header[1] & 0x7F;
        if (length7 < 126) {
            return length7;
        }
        int bytes = length7 == 126 ? 2 : 8;
        long length = 0;
        for (int k = 0; k < bytes; k++) {
            length = (length << 8) | (header[2 + k] & 0xFF);
        }
        return length & Long.MAX_VALUE; // the most significant bit must be 0 (RFC 6455 §5.2)
    }
}
