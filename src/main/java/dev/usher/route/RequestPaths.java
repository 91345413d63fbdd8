package dev.usher.route;

/**
 * The normal form of a request's path that a site's {@code paths:} are matched on (RFC 3986 §6.2.2): percent-escapes
 * of unreserved characters decoded ({@code %61} is {@code a}, {@code %2E} is {@code .}), other escapes kept with
 * upper-case hex, {@code .} and {@code ..} segments resolved. Duplicate slashes are kept as they are: {@code //admin/}
 * is not {@code /admin/} (a backend that merges slashes sees them as one; the docs say so). The query is kept as
 * sent.
 *
 * <p>Some paths have no normal form and get a 400: a malformed escape ({@code %zz}, {@code %4}), an escaped control
 * character, a raw space, control or non-ASCII character, a raw backslash, a {@code ..} above the root, and an
 * escaped slash or backslash that would make a dot segment once decoded ({@code ..%2F}, {@code %2F..}): a backend
 * that decodes {@code %2F} before resolving dots would otherwise see another path than the one matched. An escaped
 * slash elsewhere ({@code group%2Fproject}, as GitLab's API uses) is fine.
 *
 * <p>Matching then reads an escaped slash or backslash as a slash ({@link #matchForm}): {@code /private%2Fnotes} is
 * under {@code /private/}, since a backend that decodes {@code %2F} would serve it as that. The backend still gets
 * the escape.
 *
 * <p>A path already in normal form is returned as the same string, so the usual request allocates nothing.
 */
public final class RequestPaths {
    private RequestPaths() {
    }

    /** The request target in normal form (path, then the query as sent), or null when it has none (a 400). */
    public static String normalize(String uri) {
        if (uri.isEmpty() || uri.charAt(0) != '/') {
            return uri; // "*" (OPTIONS *): no path to match
        }
        int end = pathEnd(uri);
        if (isNormal(uri, end)) {
            return uri;
        }
        String path = resolve(uri, end);
        if (path == null) {
            return null;
        }
        return end == uri.length() ? path : path + uri.substring(end);
    }

    /**
     * What a normalised target's path is matched as: with {@code %2F} and {@code %5C} read as {@code /}. The same
     * string when it has neither.
     */
    public static String matchForm(String normal) {
        int end = pathEnd(normal);
        int escape = normal.indexOf('%');
        if (escape < 0 || escape >= end) {
            return normal;
        }
        String path = normal.substring(0, end).replace("%2F", "/").replace("%5C", "/");
        return path.length() == end ? normal : path + normal.substring(end);
    }

    /** Where the path ends: at the {@code ?} of the query, or the end. */
    public static int pathEnd(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? uri.length() : q;
    }

    /** True when {@code uri[0, end)} has no escape, no dot segment, nothing to refuse. */
    private static boolean isNormal(String uri, int end) {
        for (int i = 0; i < end; i++) {
            char c = uri.charAt(i);
            if (c == '%' || c == '\\' || c <= ' ' || c >= 0x7f) {
                return false;
            }
            if (c == '.' && uri.charAt(i - 1) == '/') {
                int next = i + 1 < end ? uri.charAt(i + 1) : '/';
                if (next == '/' || next == '.' && (i + 2 >= end || uri.charAt(i + 2) == '/')) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Decodes what may be decoded, then resolves dot segments; null when the path cannot be normalised. */
    private static String resolve(String uri, int end) {
        StringBuilder decoded = new StringBuilder(end);
        for (int i = 0; i < end; i++) {
            char c = uri.charAt(i);
            if (c == '\\' || c <= ' ' || c >= 0x7f) {
                return null;
            }
            if (c != '%') {
                decoded.append(c);
                continue;
            }
            if (i + 2 >= end || !isHex(uri.charAt(i + 1)) || !isHex(uri.charAt(i + 2))) {
                return null;
            }
            int value = Character.digit(uri.charAt(i + 1), 16) * 16 + Character.digit(uri.charAt(i + 2), 16);
            if (value < 0x20 || value == 0x7f) {
                return null;
            }
            if (isUnreserved(value)) {
                decoded.append((char) value);
            } else {
                decoded.append('%').append(Character.toUpperCase(uri.charAt(i + 1)))
                        .append(Character.toUpperCase(uri.charAt(i + 2)));
            }
            i += 2;
        }
        return removeDotSegments(decoded);
    }

    /** RFC 3986 §5.2.4 on an absolute path, with a {@code ..} above the root refused rather than dropped. */
    private static String removeDotSegments(CharSequence path) {
        // Segments between slashes; the output keeps the leading slash and every empty segment.
        java.util.ArrayList<String> out = new java.util.ArrayList<>();
        int start = 1;
        boolean trailingSlash = false;
        while (start <= path.length()) {
            int slash = indexOf(path, '/', start);
            String segment = path.subSequence(start, slash).toString();
            boolean last = slash == path.length();
            if (hidesDotSegment(segment)) {
                return null;
            }
            if (segment.equals(".")) {
                trailingSlash = last;
            } else if (segment.equals("..")) {
                if (out.isEmpty()) {
                    return null;
                }
                out.remove(out.size() - 1);
                trailingSlash = last;
            } else {
                out.add(segment);
                trailingSlash = false;
            }
            start = slash + 1;
        }
        StringBuilder result = new StringBuilder(path.length());
        for (String segment : out) {
            result.append('/').append(segment);
        }
        if (trailingSlash || result.isEmpty()) {
            result.append('/');
        }
        return result.toString();
    }

    /** An escaped slash or backslash splitting a segment into pieces one of which is {@code .} or {@code ..}. */
    private static boolean hidesDotSegment(String segment) {
        if (segment.indexOf('%') < 0) {
            return false;
        }
        String split = segment.replace("%2F", "/").replace("%5C", "/");
        if (split.equals(segment)) {
            return false;
        }
        for (String piece : split.split("/", -1)) {
            if (piece.equals(".") || piece.equals("..")) {
                return true;
            }
        }
        return false;
    }

    private static int indexOf(CharSequence s, char c, int from) {
        for (int i = from; i < s.length(); i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return s.length();
    }

    private static boolean isHex(char c) {
        return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F';
    }

    /** RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~". */
    private static boolean isUnreserved(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                || c == '_' || c == '~';
    }
}
