package dev.usher.statics;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

import java.util.Date;

/**
 * A file's validators and the conditional requests that use them (RFC 9110 §13): a strong ETag from its size and
 * modification time (as nginx makes it; a variant such as the gzip sibling gets its own), Last-Modified to the
 * second, and the answers {@code If-Match}, {@code If-Unmodified-Since}, {@code If-None-Match},
 * {@code If-Modified-Since} and {@code If-Range} call for.
 *
 * @param etag         the ETag, quoted
 * @param modifiedSecs the modification time in whole seconds since the epoch
 */
record Validators(String etag, long modifiedSecs) {
    /** What the conditional headers say to do. */
    enum Verdict {
        /** Serve the file. */
        SERVE,
        /** 304 Not Modified. */
        NOT_MODIFIED,
        /** 412 Precondition Failed. */
        FAILED
    }

    static Validators of(long size, long modifiedMillis, String variant) {
        String tag = "\"" + Long.toHexString(modifiedMillis / 1000) + "-" + Long.toHexString(size)
                + (variant == null ? "" : "-" + variant) + "\"";
        return new Validators(tag, Math.floorDiv(modifiedMillis, 1000));
    }

    /** The Last-Modified header's value. */
    String lastModified() {
        return DateFormatter.format(new Date(modifiedSecs * 1000));
    }

    /** The order of RFC 9110 §13.2.2, for a GET or HEAD. */
    Verdict check(HttpHeaders request) {
        String ifMatch = request.get(HttpHeaderNames.IF_MATCH);
        if (ifMatch != null) {
            if (!matches(ifMatch, false)) {
                return Verdict.FAILED;
            }
        } else {
            long since = date(request.get(HttpHeaderNames.IF_UNMODIFIED_SINCE));
            if (since != Long.MIN_VALUE && modifiedSecs > since) {
                return Verdict.FAILED;
            }
        }
        String ifNoneMatch = request.get(HttpHeaderNames.IF_NONE_MATCH);
        if (ifNoneMatch != null) {
            return matches(ifNoneMatch, true) ? Verdict.NOT_MODIFIED : Verdict.SERVE;
        }
        long since = date(request.get(HttpHeaderNames.IF_MODIFIED_SINCE));
        return since != Long.MIN_VALUE && modifiedSecs <= since ? Verdict.NOT_MODIFIED : Verdict.SERVE;
    }

    /**
     * True when a Range may be honoured: no {@code If-Range}, or one naming this very representation (its strong
     * ETag, or exactly its Last-Modified date).
     */
    boolean rangeAllowed(HttpHeaders request) {
        String ifRange = request.get(HttpHeaderNames.IF_RANGE);
        if (ifRange == null) {
            return true;
        }
        String value = ifRange.strip();
        if (value.startsWith("\"") || value.startsWith("W/")) {
            return value.equals(etag);
        }
        return date(value) == modifiedSecs;
    }

    /** True when the list (or {@code *}) names this ETag; weak comparison for If-None-Match, strong for If-Match. */
    private boolean matches(String list, boolean weak) {
        for (String entry : list.split(",")) {
            String tag = entry.strip();
            if (tag.equals("*")) {
                return true;
            }
            if (tag.startsWith("W/")) {
                if (!weak) {
                    continue;
                }
                tag = tag.substring(2);
            }
            if (tag.equals(etag)) {
                return true;
            }
        }
        return false;
    }

    /** An HTTP date in seconds, or {@code Long.MIN_VALUE} when absent or unreadable (then it is ignored). */
    private static long date(String value) {
        if (value == null) {
            return Long.MIN_VALUE;
        }
        Date parsed = DateFormatter.parseHttpDate(value);
        return parsed == null ? Long.MIN_VALUE : Math.floorDiv(parsed.getTime(), 1000);
    }
}
