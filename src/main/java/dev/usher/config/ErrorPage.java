package dev.usher.config;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * One page file of {@code error_pages:} (or a maintenance {@code page:}), read when the config is loaded: a reload
 * picks up an edited file.
 *
 * @param file        where it was read from
 * @param body        its bytes (at most {@link #MAX_SIZE})
 * @param contentType by its extension: HTML unless it is {@code .txt} or {@code .json}
 */
public record ErrorPage(Path file, byte[] body, String contentType) {
    /** The largest page file accepted: a page is sent from memory. */
    public static final int MAX_SIZE = 1 << 20;

    public ErrorPage {
        body = body.clone();
    }

    /** The page's bytes (a copy). */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /** The length of the page in bytes. */
    public int length() {
        return body.length;
    }

    /** The page's bytes without a copy, to be wrapped read-only and never changed. */
    public byte[] sharedBytes() {
        return body;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ErrorPage p && file.equals(p.file) && Arrays.equals(body, p.body)
                && contentType.equals(p.contentType);
    }

    @Override
    public int hashCode() {
        return file.hashCode() * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "ErrorPage[" + file + ", " + body.length + " bytes]";
    }
}
