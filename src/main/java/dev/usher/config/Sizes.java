package dev.usher.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.Map;

/**
 * Parses sizes in bytes as written in the file: a plain number of bytes ({@code 1048576}), or a number with a unit
 * ({@code 16KiB}, {@code 10MB}, {@code 1.5GiB}, {@code 512 k}). {@code KB}, {@code MB}, {@code GB} count in
 * thousands; {@code KiB}, {@code MiB}, {@code GiB} and the one-letter shorthands {@code k}, {@code m}, {@code g}
 * count in 1024s. Units are read without regard to case ({@code kib}, {@code kb}). A fraction of a byte is dropped.
 */
final class Sizes {
    static final String EXAMPLES = "512KiB, 10MB, 1GiB";

    private static final long KI = 1024;
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("kb", 1000L), Map.entry("mb", 1000L * 1000), Map.entry("gb", 1000L * 1000 * 1000),
            Map.entry("kib", KI), Map.entry("mib", KI * KI), Map.entry("gib", KI * KI * KI),
            Map.entry("k", KI), Map.entry("m", KI * KI), Map.entry("g", KI * KI * KI));

    private Sizes() {
    }

    /** Parses {@code text} to a number of bytes, zero or more. */
    static long parse(String text) throws BadValue {
        String s = text.strip();
        if (s.startsWith("-")) {
            throw new BadValue("a size cannot be negative; got \"" + text + "\"");
        }
        int end = Durations.skipNumber(s, 0);
        if (end == 0) {
            throw invalid(text);
        }
        String unit = s.substring(end).strip();
        Long multiplier = UNITS.get(unit.toLowerCase(Locale.ROOT));
        if (multiplier == null) {
            if (!unit.chars().allMatch(Character::isLetter)) {
                throw invalid(text);
            }
            throw new BadValue("invalid size \"" + text + "\": unknown unit \"" + unit
                    + "\"; use B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)");
        }
        BigDecimal bytes = new BigDecimal(s.substring(0, end)).multiply(BigDecimal.valueOf(multiplier))
                .setScale(0, RoundingMode.DOWN);
        if (bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new BadValue("size \"" + text + "\" is too large");
        }
        return bytes.longValueExact();
    }

    private static BadValue invalid(String text) {
        return new BadValue("invalid size \"" + text + "\"; use a number of bytes or a number with a unit: "
                + EXAMPLES);
    }
}
