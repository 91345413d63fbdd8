package dev.usher.whoami;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the sizes ({@code 50MiB}) and durations ({@code 150ms}) that whoami's query parameters take. */
final class Quantities {
    /** The longest {@code wait} accepted, so a typo cannot park a connection for days. */
    static final long MAX_WAIT_NANOS = TimeUnit.HOURS.toNanos(1);

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([a-z]*)");
    private static final Pattern DURATION_PART = Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");
    private static final Pattern BARE_NUMBER = Pattern.compile("\\d+");

    private Quantities() {
    }

    /**
     * Bytes in {@code text}: a whole number with an optional unit, case-insensitive. {@code B}; SI units
     * {@code K}/{@code KB} = 1000, {@code M}/{@code MB} = 1000², {@code G}/{@code GB}, {@code T}/{@code TB}; binary
     * units {@code KiB} = 1024, {@code MiB} = 1024², {@code GiB}, {@code TiB}.
     *
     * @throws IllegalArgumentException when the text is not a size or overflows a long
     */
    static long parseSize(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: '" + text + "' (try 1024, 64KiB or 50MiB)");
        }
        long unit = switch (m.group(2)) {
            case "", "b" -> 1L;
            case "k", "kb" -> 1000L;
            case "m", "mb" -> 1000L * 1000;
            case "g", "gb" -> 1000L * 1000 * 1000;
            case "t", "tb" -> 1000L * 1000 * 1000 * 1000;
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            case "tib" -> 1L << 40;
            default -> throw new IllegalArgumentException("unknown size unit in '" + text
                    + "' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)");
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("size too large: '" + text + "'");
        }
    }

    /**
     * Nanoseconds in {@code text}: Go-style durations such as {@code 2s}, {@code 150ms}, {@code 1.5s} or
     * {@code 1m30s} (units {@code ns us µs ms s m h}); a bare whole number means milliseconds.
     *
     * @throws IllegalArgumentException when the text is not a duration or is longer than {@link #MAX_WAIT_NANOS}
     */
    static long parseDurationNanos(String text) {
        String t = text.trim();
        if (BARE_NUMBER.matcher(t).matches()) {
            t = t + "ms";
        }
        Matcher m = DURATION_PART.matcher(t);
        BigDecimal nanos = BigDecimal.ZERO;
        int end = 0;
        while (m.find() && m.start() == end) {
            nanos = nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos(m.group(2)))));
            end = m.end();
        }
        if (end == 0 || end != t.length()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (try 2s, 150ms or 1m30s)");
        }
        if (nanos.compareTo(BigDecimal.valueOf(MAX_WAIT_NANOS)) > 0) {
            throw new IllegalArgumentException("duration too long: '" + text + "' (at most 1h)");
        }
        return nanos.longValue();
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            default -> 3_600_000_000_000L; // h
        };
    }
}
