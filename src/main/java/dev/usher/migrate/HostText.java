package dev.usher.migrate;

import java.net.IDN;
import java.util.Locale;

/**
 * A host name as a source wrote it, made into the form {@code usher.yaml} takes: lower-case, no trailing dot, and an
 * international name in its ASCII (punycode) form, remembering how it was written. Whether the result is a valid
 * site name is left to the loader, which checks every converted site.
 */
final class HostText {
    /**
     * @param ascii     the name for {@code usher.yaml}
     * @param writtenAs the name as the source wrote it, or null when that is the same
     */
    record Host(String ascii, String writtenAs) {
    }

    private HostText() {
    }

    static Host parse(String raw) {
        String s = raw.strip();
        if (s.endsWith(".")) {
            s = s.substring(0, s.length() - 1);
        }
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.chars().allMatch(c -> c < 0x80)) {
            return new Host(lower, null);
        }
        try {
            String ascii = IDN.toASCII(s, IDN.ALLOW_UNASSIGNED).toLowerCase(Locale.ROOT);
            return new Host(ascii, s);
        } catch (IllegalArgumentException e) {
            return new Host(lower, null); // the loader says what is wrong with it
        }
    }
}
