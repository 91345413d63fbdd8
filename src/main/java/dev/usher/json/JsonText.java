package dev.usher.json;

/**
 * Writes JSON string literals, the one way the whole project does (the admin API, the access log): quotes and
 * backslashes escaped, newline, return and tab in their short forms, and every other character outside printable
 * ASCII as a {@code u} escape, so the text stays ASCII and a crafted host name or URI can break neither a log line
 * nor the JSON around it.
 */
public final class JsonText {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    /** {@code text} as a JSON string literal; {@code null} for null. */
    public static String quote(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(text.length() + 2);
        quote(text, out);
        return out.toString();
    }

    /** Appends {@code text} as a JSON string literal to {@code out}; {@code null} for null. */
    public static void quote(CharSequence text, StringBuilder out) {
        if (text == null) {
            out.append("null");
            return;
        }
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                out.append("\\u").append(HEX[c >> 12 & 15]).append(HEX[c >> 8 & 15]).append(HEX[c >> 4 & 15])
                        .append(HEX[c & 15]);
            }
        }
        out.append('"');
    }
}
