package dev.usher.cert;

import java.util.Locale;

/**
 * Turns certificate names and issuer ids into file names and back. The mapping is one-to-one so a listing of the
 * store gives back the names: {@code *.example.com} ↔ {@code wildcard_.example.com}, IPv6 {@code ::1} ↔
 * {@code ipv6_--1}. Host names never hold {@code _}, so the two prefixes cannot collide with a name.
 */
final class StoreNames {
    private static final String WILDCARD = "wildcard_";
    private static final String IPV6 = "ipv6_";

    private StoreNames() {
    }

    /** The file-name-safe form of {@code name}; lower-case. Refuses anything that could escape its folder. */
    static String encode(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.isEmpty() || n.length() > 253) {
            throw new IllegalArgumentException("not a certificate name: \"" + name + "\" (empty or too long)");
        }
        if (n.contains("..")) {
            throw new IllegalArgumentException("not a certificate name: \"" + name + "\" (contains \"..\")");
        }
        if (n.indexOf(':') >= 0) {
            requireOnly(name, n, "0123456789abcdef:.");
            return IPV6 + n.replace(':', '-');
        }
        String rest = n.startsWith("*.") ? n.substring(2) : n;
        requireOnly(name, rest, "abcdefghijklmnopqrstuvwxyz0123456789.-");
        if (rest.isEmpty() || rest.startsWith(".")) {
            throw new IllegalArgumentException("not a certificate name: \"" + name + "\" (empty label)");
        }
        return n.startsWith("*.") ? WILDCARD + "." + rest : rest;
    }

    /** The name that {@link #encode} turned into {@code fileName}. */
    static String decode(String fileName) {
        if (fileName.startsWith(WILDCARD)) {
            return "*" + fileName.substring(WILDCARD.length());
        }
        if (fileName.startsWith(IPV6)) {
            return fileName.substring(IPV6.length()).replace('-', ':');
        }
        return fileName;
    }

    /** Checks that an issuer id can be used as a folder name as it is. */
    static String checkIssuerId(String issuerId) {
        if (issuerId.isEmpty() || issuerId.startsWith(".") || issuerId.startsWith("_") || issuerId.length() > 64) {
            throw new IllegalArgumentException("not a usable issuer id: \"" + issuerId + "\"");
        }
        requireOnly(issuerId, issuerId, "abcdefghijklmnopqrstuvwxyz0123456789.-_");
        return issuerId;
    }

    private static void requireOnly(String original, String s, String allowed) {
        for (int i = 0; i < s.length(); i++) {
            if (allowed.indexOf(s.charAt(i)) < 0) {
                throw new IllegalArgumentException("\"" + printable(original) + "\" contains '"
                        + printable(String.valueOf(s.charAt(i))) + "', which a stored name may not have");
            }
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", c)
                : String.valueOf((char) c)));
        return b.toString();
    }
}
