package dev.usher.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;

/**
 * Parses durations as written in the file: a number with a unit ({@code 500ms}, {@code 10s}, {@code 1m},
 * {@code 2h}), several such parts with the larger units first ({@code 1m30s}), or a plain number of seconds
 * ({@code 30}). Numbers may have a fraction ({@code 1.5s}). Units are lower-case, so that {@code M} is never
 * taken for minutes when months or megabytes were meant. Every duration in the file must be greater than zero.
 */
final class Durations {
    static final String EXAMPLES = "500ms, 10s, 1m, 2h";

    /** Units from largest to smallest; a later part must use a unit further down this list. */
    private static final String[] UNITS = {"h", "m", "s", "ms"};
    private static final long[] NANOS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};

    private Durations() {
    }

    /** Parses {@code text}; the message of the exception says what is wrong and shows the accepted forms. */
    static Duration parse(String text) throws BadValue {
        String s = text.strip();
        if (s.startsWith("-")) {
            throw new BadValue("a duration must be greater than zero; got \"" + text + "\"");
        }
        BigDecimal nanos = isNumber(s) ? new BigDecimal(s).multiply(BigDecimal.valueOf(NANOS[2])) : sumOfParts(s, text);
        BigDecimal whole = nanos.setScale(0, RoundingMode.DOWN);
        if (whole.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new BadValue("duration \"" + text + "\" is too large");
        }
        if (whole.signum() <= 0) {
            throw new BadValue("a duration must be greater than zero; got \"" + text + "\"");
        }
        return Duration.ofNanos(whole.longValueExact());
    }

    private static BigDecimal sumOfParts(String s, String text) throws BadValue {
        BigDecimal total = BigDecimal.ZERO;
        int lastUnit = -1;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            i = skipNumber(s, i);
            if (i == start) {
                throw invalid(text);
            }
            BigDecimal number = new BigDecimal(s.substring(start, i));
            i = skipSpaces(s, i);
            int unitStart = i;
            while (i < s.length() && Character.isLetter(s.charAt(i))) {
                i++;
            }
            String unit = s.substring(unitStart, i);
            if (unit.isEmpty()) {
                throw invalid(text);
            }
            int rank = rank(unit);
            if (rank < 0 && rank(unit.toLowerCase(Locale.ROOT)) >= 0) {
                throw new BadValue("invalid duration \"" + text + "\"; units are lower-case: ms, s, m, h");
            }
            if (rank < 0) {
                throw invalid(text);
            }
            if (rank <= lastUnit) {
                throw new BadValue("invalid duration \"" + text
                        + "\": put larger units first and give each unit once, as in 1m30s");
            }
            lastUnit = rank;
            total = total.add(number.multiply(BigDecimal.valueOf(NANOS[rank])));
            i = skipSpaces(s, i);
        }
        if (lastUnit < 0) {
            throw invalid(text);
        }
        return total;
    }

    /** A duration in the file's own notation, largest units first: {@code 1h30m}, {@code 2s}, {@code 1s500ms}. */
    static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos < NANOS[3]) {
            return nanos + "ns";
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < UNITS.length; i++) {
            long count = nanos / NANOS[i];
            if (count > 0) {
                out.append(count).append(UNITS[i]);
                nanos -= count * NANOS[i];
            }
        }
        return out.toString();
    }

    private static BadValue invalid(String text) {
        return new BadValue("invalid duration \"" + text + "\"; use a number with a unit: " + EXAMPLES);
    }

    private static int rank(String unit) {
        for (int r = 0; r < UNITS.length; r++) {
            if (UNITS[r].equals(unit)) {
                return r;
            }
        }
        return -1;
    }

    /** True for digits with an optional fraction: {@code 30}, {@code 1.5}. */
    static boolean isNumber(String s) {
        return !s.isEmpty() && skipNumber(s, 0) == s.length();
    }

    /** The index after a number ({@code 12} or {@code 1.5}) starting at {@code i}, or {@code i} if there is none. */
    static int skipNumber(String s, int i) {
        int digits = skipDigits(s, i);
        if (digits == i) {
            return i;
        }
        if (digits < s.length() && s.charAt(digits) == '.') {
            int fraction = skipDigits(s, digits + 1);
            if (fraction > digits + 1) {
                return fraction;
            }
        }
        return digits;
    }

    private static int skipDigits(String s, int i) {
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && s.charAt(i) == ' ') {
            i++;
        }
        return i;
    }
}
