package dev.usher.admin;

import java.util.Locale;

/** Which Host and Origin values count as "this machine" for the admin endpoint. */
final class LoopbackHosts {
    private LoopbackHosts() {
    }

    /** True for {@code localhost}, {@code 127.x.y.z} or {@code [::1]}, with or without a port. */
    static boolean isLoopbackHost(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end > 0 && h.substring(1, end).equals("::1") && portOnly(h.substring(end + 1));
        }
        int colon = h.indexOf(':');
        String name = colon < 0 ? h : h.substring(0, colon);
        if (colon >= 0 && !portOnly(h.substring(colon))) {
            return false;
        }
        return name.equals("localhost") || isLoopbackV4(name);
    }

    private static boolean portOnly(String rest) {
        return rest.isEmpty() || rest.length() > 1 && rest.charAt(0) == ':'
                && rest.substring(1).chars().allMatch(Character::isDigit) && rest.length() <= 6;
    }

    private static boolean isLoopbackV4(String name) {
        String[] parts = name.split("\\.", -1);
        if (parts.length != 4 || !parts[0].equals("127")) {
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
