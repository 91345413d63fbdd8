package dev.usher.statics;

import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.List;

/** What a folder answers to one request: an error, a complete answer, or a file to send. */
public sealed interface Reply {
    /**
     * An error status, for the site's error page (404, 400, 405 with {@code allow}, 412, 416 with
     * {@code contentRange}, 500).
     *
     * @param allow        the Allow header for a 405, else null
     * @param contentRange the Content-Range header for a 416, else null
     */
    record Refusal(HttpResponseStatus status, String allow, String contentRange) implements Reply {
    }

    /** A complete answer: a 304, a redirect to the folder's own URL, a folder listing, or any answer to HEAD. */
    record Answer(FullHttpResponse response) implements Reply {
    }

    /**
     * A file's bytes to send after {@code head} (200 or 206; its Content-Length is the body's): each part is an
     * optional text prefix (a multipart boundary and headers) and a slice of the file; {@code trailer} ends the
     * body (the closing boundary) or is empty. The receiver owns {@code file} and closes it.
     *
     * @param compressible the response compressor may encode it (identity, a compressible type, a 200), so the file
     *                     cannot go by zero-copy transfer
     */
    record Transfer(HttpResponse head, FileChannel file, List<Part> parts, byte[] trailer, boolean compressible)
            implements Reply {
        public Transfer {
            parts = List.copyOf(parts);
        }

        /** True for one plain slice of the file, without multipart framing: what a zero-copy transfer can carry. */
        public boolean single() {
            return parts.size() == 1 && parts.get(0).prefix().length == 0 && trailer.length == 0;
        }

        /** Closes the file, quietly: nothing more is read from it. */
        public void close() {
            try {
                file.close();
            } catch (IOException e) {
                // nothing to report: only reads were done
            }
        }
    }

    /** A slice of the file, after a text prefix (empty unless multipart). */
    record Part(byte[] prefix, long position, long length) {
    }
}
