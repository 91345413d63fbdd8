package dev.usher.statics;

import java.util.ArrayList;
import java.util.List;

/**
 * The byte ranges a {@code Range} header asks of a file (RFC 9110 §14): {@code bytes=0-99}, {@code bytes=500-},
 * {@code bytes=-200}, or several separated by commas. A header Usher cannot read, in another unit, or asking for
 * more than {@value #MAX_RANGES} ranges or more bytes than twice the file (overlapping ranges as an attack) is
 * ignored: the whole file goes, as the RFC allows.
 */
final class ByteRanges {
    static final int MAX_RANGES = 16;

    /** One satisfiable range, both ends included. */
    record Range(long first, long last) {
        long length() {
            return last - first + 1;
        }
    }

    /** What to serve: the whole file ({@code ranges} null), the ranges, or 416 ({@code unsatisfiable}). */
    record Result(List<Range> ranges, boolean unsatisfiable) {
        static final Result WHOLE = new Result(null, false);
        static final Result UNSATISFIABLE = new Result(List.of(), true);
    }

    private ByteRanges() {
    }

    static Result parse(String header, long size) {
        if (header == null) {
            return Result.WHOLE;
        }
        String value = header.strip();
        if (!value.regionMatches(true, 0, "bytes=", 0, 6)) {
            return Result.WHOLE;
        }
        String[] specs = value.substring(6).split(",", -1);
        if (specs.length > MAX_RANGES) {
            return Result.WHOLE;
        }
        List<Range> ranges = new ArrayList<>(specs.length);
        long total = 0;
        boolean any = false;
        for (String raw : specs) {
            String spec = raw.strip();
            int dash = spec.indexOf('-');
            if (dash < 0 || spec.indexOf('-', dash + 1) >= 0) {
                return Result.WHOLE;
            }
            long first = number(spec.substring(0, dash));
            long last = number(spec.substring(dash + 1));
            Range range;
            if (dash == 0) { // a suffix: the last N bytes
                if (last < 0) {
                    return Result.WHOLE;
                }
                any = true;
                range = last == 0 || size == 0 ? null : new Range(Math.max(0, size - last), size - 1);
            } else {
                if (first < 0 || dash < spec.length() - 1 && (last < 0 || last < first)) {
                    return Result.WHOLE;
                }
                any = true;
                range = first >= size ? null : new Range(first, dash == spec.length() - 1 ? size - 1
                        : Math.min(last, size - 1));
            }
            if (range != null) {
                ranges.add(range);
                total += range.length();
            }
        }
        if (!any) {
            return Result.WHOLE;
        }
        if (ranges.isEmpty()) {
            return Result.UNSATISFIABLE;
        }
        if (total > 2 * Math.max(size, 1)) {
            return Result.WHOLE;
        }
        return new Result(List.copyOf(ranges), false);
    }

    /** Digits only, as a non-negative number; -1 for anything else (or empty). */
    private static long number(String digits) {
        String d = digits.strip();
        if (d.isEmpty() || d.length() > 18) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < d.length(); i++) {
            char c = d.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
