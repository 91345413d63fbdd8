package dev.usher.route;

/** Turns a Host header (or an absolute URI's authority) into the bare, lower-case name that routes match on. */
final class HostNames {
    private HostNames() {
    }

    /**
     * {@code "App.Example.com:8080"} → {@code "app.example.com"}, {@code "[::1]:80"} → {@code "::1"}, a trailing dot
     * dropped. Returns the argument itself when it is already bare and lower-case, so the common case allocates
     * nothing. Returns null for an empty or malformed value.
     */
    static String normalize(String host) {
        if (host == null) {
            return null;
        }
        int start = 0;
        int end = host.length();
        if (end > 0 && host.charAt(0) == '[') {
            int close = host.indexOf(']');
            if (close < 0) {
                return null;
            }
            start = 1;
            end = close;
        } else {
            int colon = host.indexOf(':');
            if (colon >= 0) {
                end = colon;
            }
        }
        if (end > start && host.charAt(end - 1) == '.') {
            end--;
        }
        if (end <= start) {
            return null;
        }
        boolean lower = true;
        for (int i = start; i < end; i++) {
            char c = host.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                lower = false;
            } else if (c <= ' ' || c >= 0x7f || c == '/' || c == '\\' || c == '@') {
                return null;
            }
        }
        if (lower) {
            return start == 0 && end == host.length() ? host : host.substring(start, end);
        }
        return toLowerAscii(host, start, end);
    }

    /** {@code s[start, end)} in lower case, copied once (no intermediate substring). */
    private static String toLowerAscii(String s, int start, int end) {
        char[] chars = new char[end - start];
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            chars[i - start] = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
        }
        return new String(chars);
    }
}
