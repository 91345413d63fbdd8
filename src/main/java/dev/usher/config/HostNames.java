package dev.usher.config;

import java.net.IDN;

/**
 * Checks host names, IP literals and ports without touching the network (no resolver calls: a config check must
 * give the same answer offline). Names passed in are already lower-case and without a trailing dot.
 */
final class HostNames {
    static final int MAX_NAME = 253;
    static final int MAX_LABEL = 63;

    private HostNames() {
    }

    /** True when {@code s} is made only of digits and dots, so it can only be meant as an IPv4 address. */
    static boolean looksLikeIpv4(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
    }

    /** True for a dotted-quad IPv4 address; leading zeros are refused, as some tools read them as octal. */
    static boolean isIpv4(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || part.length() > 1 && part.charAt(0) == '0'
                    || !part.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    /**
     * True for an IPv6 address without brackets: eight groups of one to four hex digits, one {@code ::} standing
     * for one or more zero groups, and optionally an IPv4 address as the last two groups. Zone ids are refused.
     */
    static boolean isIpv6(String s) {
        int gap = s.indexOf("::");
        if (gap >= 0 && s.indexOf("::", gap + 1) >= 0) {
            return false;
        }
        if (gap < 0) {
            return groups(s, true) == 8;
        }
        int head = gap == 0 ? 0 : groups(s.substring(0, gap), false);
        int tail = gap + 2 == s.length() ? 0 : groups(s.substring(gap + 2), true);
        return head >= 0 && tail >= 0 && head + tail <= 7;
    }

    /** The number of 16-bit groups in {@code s} ({@code a:b:c}), or -1 if it is not a valid run of groups. */
    private static int groups(String s, boolean ipv4Last) {
        String[] parts = s.split(":", -1);
        int count = 0;
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (ipv4Last && i == parts.length - 1 && part.indexOf('.') >= 0) {
                if (!isIpv4(part)) {
                    return -1;
                }
                count += 2;
            } else if (part.isEmpty() || part.length() > 4 || !part.chars().allMatch(HostNames::isHex)) {
                return -1;
            } else {
                count++;
            }
        }
        return count;
    }

    private static boolean isHex(int c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /**
     * Checks a DNS name: labels of 1–63 letters, digits and hyphens (and underscores when {@code allowUnderscore},
     * as docker-compose service names may have them), not starting or ending with a hyphen; 253 characters at most.
     */
    static void checkDnsName(String name, boolean allowUnderscore) throws BadValue {
        if (name.isEmpty()) {
            throw new BadValue("the host name is empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7f) {
                throw new BadValue("\"" + name + "\" has non-ASCII letters; write it in its ASCII form"
                        + asciiForm(name));
            }
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' && allowUnderscore)) {
                throw new BadValue("\"" + name + "\" contains \"" + c + "\"; a host name may have only letters, "
                        + "digits, '-'" + (allowUnderscore ? ", '_'" : "") + " and '.'");
            }
        }
        if (name.length() > MAX_NAME) {
            throw new BadValue("the host name is " + name.length() + " characters long; at most " + MAX_NAME
                    + " are allowed");
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty()) {
                throw new BadValue("\"" + name + "\" has an empty label (two dots in a row, or a leading dot)");
            }
            if (label.length() > MAX_LABEL) {
                throw new BadValue("the label \"" + label + "\" is " + label.length() + " characters long; at most "
                        + MAX_LABEL + " are allowed");
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                throw new BadValue("the label \"" + label + "\" starts or ends with '-', which is not allowed");
            }
        }
    }

    private static String asciiForm(String name) {
        try {
            return ", \"" + IDN.toASCII(name, IDN.ALLOW_UNASSIGNED) + "\"";
        } catch (IllegalArgumentException e) {
            return " (punycode, xn--...)";
        }
    }

    /**
     * Parses a port number.
     *
     * @param text      the digits as written
     * @param allowZero whether 0 (an ephemeral port, for listeners in tests) is allowed
     */
    static int port(String text, boolean allowZero) throws BadValue {
        int min = allowZero ? 0 : 1;
        if (text.isEmpty()) {
            throw new BadValue("the port is missing after ':'");
        }
        if (!text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new BadValue("invalid port \"" + text + "\"; use a number from " + min + " to 65535");
        }
        String digits = text.replaceFirst("^0+(?=.)", "");
        int port = digits.length() > 5 ? Integer.MAX_VALUE : Integer.parseInt(digits);
        if (port < min || port > 65535) {
            throw new BadValue("port " + text + " is out of range; use a number from " + min + " to 65535");
        }
        return port;
    }
}
