package dev.usher.protocol;

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
            String coding = trim(header, start, semi);
            if (!coding.isEmpty()) {
                int q = semi < end ? weight(header, semi + 1, end) : 1000;
                if (coding.equalsIgnoreCase(ZSTD)) {
                    zstdQ = Math.max(zstdQ, q);
                } else if (coding.equalsIgnoreCase(GZIP) || coding.equalsIgnoreCase("x-gzip")) {
                    gzipQ = Math.max(gzipQ, q);
                } else if (coding.equals("*")) {
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
            String param = trim(header, start, semi);
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("q")) {
                return qvalue(param.substring(eq + 1).trim());
            }
            start = semi + 1;
        }
        return 1000;
    }

    /** {@code qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )}, in thousandths; invalid gives 0. */
    static int qvalue(String s) {
        if (s.isEmpty() || s.length() > 5 || (s.charAt(0) != '0' && s.charAt(0) != '1')) {
            return 0;
        }
        int whole = s.charAt(0) - '0';
        if (s.length() == 1) {
            return whole * 1000;
        }
        if (s.charAt(1) != '.') {
            return 0;
        }
        int fraction = 0;
        int scale = 100;
        for (int i = 2; i < s.length(); i++) {
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

    private static int indexOf(CharSequence s, char c, int from, int end) {
        for (int i = from; i < end; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return end;
    }

    private static String trim(CharSequence s, int from, int to) {
        while (from < to && isSpace(s.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(s.charAt(to - 1))) {
            to--;
        }
        return s.subSequence(from, to).toString();
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }
}
