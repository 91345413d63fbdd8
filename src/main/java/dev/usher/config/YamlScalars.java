package dev.usher.config;

import java.util.regex.Pattern;

/**
 * Writes strings as YAML scalars and keys that the loader reads back as exactly those strings: plain when that is
 * safe, double-quoted (with escapes) otherwise. Used wherever Usher writes {@code usher.yaml} itself (the admin UI's
 * edits through {@link SiteYamlWriter}, {@code usher import}).
 */
public final class YamlScalars {
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:@+~*-]*");
    private static final Pattern NOT_A_STRING = Pattern.compile(
            "null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
                    + "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
    private static final Pattern BARE_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private YamlScalars() {
    }

    /** A value written plain when YAML reads it back as the same string, double-quoted otherwise. */
    public static String value(String value) {
        if (PLAIN.matcher(value).matches() && !value.endsWith(":") && !NOT_A_STRING.matcher(value).matches()) {
            return value;
        }
        return quoted(value);
    }

    /** A mapping key: bare when it is a simple name (or {@code http://} and one), double-quoted otherwise. */
    public static String key(String key) {
        if (BARE_KEY.matcher(key).matches() && !NOT_A_STRING.matcher(key).matches()) {
            return key;
        }
        if (key.startsWith("http://") && BARE_KEY.matcher(key.substring(7)).matches()) {
            return key;
        }
        return quoted(key);
    }

    /** {@code value} in double quotes, with quotes, backslashes and control characters escaped. */
    public static String quoted(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || c == 0x85 || c == 0x2028 || c == 0x2029) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }
}
