package dev.usher.protocol;

import io.netty.util.AsciiString;

/**
 * Picks the content coding for a response from a request's {@code Accept-Encoding} (RFC 9110 §12.5.3), among the
 * codings Usher can produce: {@code zstd} (when its native library loaded) and {@code gzip}.
 *
 * <p>The client's weights decide first; Usher's preference (zstd, then gzip) only breaks ties, so
 * {@code gzip;q=1, zstd;q=0.5} gets gzip. A coding named with {@code q=0} is refused even when {@code *} would allow
 * it; {@code *} covers only codings not named. A weight that is not a valid qvalue makes its entry count as
 * {@code q=0}: a client that cannot write the header is not one to guess for. {@code x-gzip} is gzip (§8.4.1.3).
 * No header, an empty one, or {@code identity} alone means no compression.
 *
 * <p>Stateless; runs once per request, on the connection's event loop.
 */
final class CompressAcceptEncoding {
    static final String ZSTD = "zstd";
    static final String GZIP = "gzip";

    private CompressAcceptEncoding() {
    }

    /**
     * @param header the request's Accept-Encoding values joined by commas, or {@code null} if it had none
     * @param zstd   whether zstd may be chosen
     * @return {@link #ZSTD}, {@link #GZIP} or {@code null} for no compression
     */
    static String choose(CharSequence header, boolean zstd) {
        if (header == null) {
            return null;
        }
        // Weights in thousandths (qvalues have at most three decimals); -1 = not named.
        int zstdQ = -1;
        int gzipQ = -1;
        int starQ = -1;
        int length = header.length();
        int start = 0;
        while (start <= length) {
            int end = indexOf(header, ',', start, length);
            int semi = indexOf(header, ';', start, end);
            // The coding is compared in place (no String per coding): [from, to) is it, trimmed.
            int from = start;
            int to = semi;
            while (from < to && isSpace(header.charAt(from))) {
                from++;
            }
            while (to > from && isSpace(header.charAt(to - 1))) {
                to--;
            }
            if (from < to) {
                int q = semi < end ? weight(header, semi + 1, end) : 1000;
                if (is(header, from, to, ZSTD)) {
                    zstdQ = Math.max(zstdQ, q);
                } else if (is(header, from, to, GZIP) || is(header, from, to, "x-gzip")) {
                    gzipQ = Math.max(gzipQ, q);
                } else if (to - from == 1 && header.charAt(from) == '*') {
                    starQ = Math.max(starQ, q);
                }
            }
            start = end + 1;
        }
        if (zstdQ < 0) {
            zstdQ = starQ;
        }
        if (gzipQ < 0) {
            gzipQ = starQ;
        }
        if (!zstd) {
            zstdQ = -1;
        }
        if (zstdQ > 0 && zstdQ >= gzipQ) {
            return ZSTD;
        }
        return gzipQ > 0 ? GZIP : null;
    }

    /**
     * The weight of one entry from its parameters ({@code ;q=0.5}, possibly among others), in thousandths; an entry
     * without {@code q} weighs 1000 and one with an invalid {@code q} weighs 0.
     */
    private static int weight(CharSequence header, int from, int end) {
        int start = from;
        while (start < end) {
            int semi = indexOf(header, ';', start, end);
            // In place: the parameter [p, semi) without leading blanks, its name before the first '=', its value after.
            int p = start;
            while (p < semi && isSpace(header.charAt(p))) {
                p++;
            }
            int eq = indexOf(header, '=', p, semi);
            if (eq > p && eq < semi) {
                int nameFrom = skipBlank(header, p, eq);
                int nameTo = trimBlank(header, nameFrom, eq);
                if (nameTo - nameFrom == 1 && (header.charAt(nameFrom) | 0x20) == 'q') {
                    int valueFrom = skipBlank(header, eq + 1, semi);
                    return qvalue(header, valueFrom, trimBlank(header, valueFrom, semi));
                }
            }
            start = semi + 1;
        }
        return 1000;
    }

    /** {@code qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )}, in thousandths; invalid gives 0. */
    static int qvalue(String s) {
        return qvalue(s, 0, s.length());
    }

    /** {@link #qvalue(String)} of {@code s[from, to)}. */
    private static int qvalue(CharSequence s, int from, int to) {
        int length = to - from;
        if (length == 0 || length > 5 || (s.charAt(from) != '0' && s.charAt(from) != '1')) {
            return 0;
        }
        int whole = s.charAt(from) - '0';
        if (length == 1) {
            return whole * 1000;
        }
        if (s.charAt(from + 1) != '.') {
            return 0;
        }
        int fraction = 0;
        int scale = 100;
        for (int i = from + 2; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            fraction += (c - '0') * scale;
            scale /= 10;
        }
        if (whole == 1 && fraction != 0) {
            return 0;
        }
        return whole * 1000 + fraction;
    }

    /** The first index in [from, to) after characters that {@link String#trim()} drops (those up to space). */
    private static int skipBlank(CharSequence s, int from, int to) {
        while (from < to && s.charAt(from) <= ' ') {
            from++;
        }
        return from;
    }

    /** The end of [from, to) without the characters that {@link String#trim()} drops at the end. */
    private static int trimBlank(CharSequence s, int from, int to) {
        while (to > from && s.charAt(to - 1) <= ' ') {
            to--;
        }
        return to;
    }

    /** True when {@code s[from, to)} is {@code name}, ignoring ASCII case. */
    private static boolean is(CharSequence s, int from, int to, String name) {
        return to - from == name.length() && AsciiString.regionMatches(s, true, from, name, 0, name.length());
    }

    private static int indexOf(CharSequence s, char c, int from, int end) {
        for (int i = from; i < end; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return end;
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
