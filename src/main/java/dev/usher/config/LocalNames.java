package dev.usher.config;

import java.util.List;
import java.util.Locale;

/**
 * Names no public CA will certify, so {@code tls: auto} gives them a certificate from Usher's local CA:
 * {@code localhost} and its subdomains, IP addresses, and names under the special-use or private suffixes
 * {@code .test}, {@code .internal}, {@code .lan}, {@code .home.arpa}, {@code .local}.
 */
public final class LocalNames {
    private static final List<String> SUFFIXES = List.of(".localhost", ".test", ".internal", ".lan", ".home.arpa",
            ".local");

    private LocalNames() {
    }

    /** True for a name (or {@code *.} wildcard) that gets a local-CA certificate under {@code tls: auto}. */
    public static boolean isLocal(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.equals("localhost") || isIpAddress(n)) {
            return true;
        }
        for (String suffix : SUFFIXES) {
            if (n.endsWith(suffix) && n.length() > suffix.length()) {
                return true;
            }
        }
        return false;
    }

    /** True for an IPv4 dotted quad or an IPv6 literal (a name with a colon). */
    public static boolean isIpAddress(String name) {
        if (name.indexOf(':') >= 0) {
            return true;
        }
        String[] parts = name.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }
}
