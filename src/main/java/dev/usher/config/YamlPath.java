package dev.usher.config;

import java.util.regex.Pattern;

/**
 * The path of a node in the file, as printed in errors: keys joined by dots, list indexes in brackets, and keys that
 * are not plain words in double quotes, e.g. {@code sites."app.example.com".to[1]}. The top is the empty path.
 *
 * @param text the printed form
 */
record YamlPath(String text) {
    static final YamlPath ROOT = new YamlPath("");

    private static final Pattern BARE = Pattern.compile("[A-Za-z0-9_-]+");

    /** The path of the value under {@code key} in the mapping at this path. */
    YamlPath key(String key) {
        String part = BARE.matcher(key).matches() ? key : quote(key);
        return new YamlPath(text.isEmpty() ? part : text + "." + part);
    }

    /** The path of item {@code index} (0-based) of the list at this path. */
    YamlPath index(int index) {
        return new YamlPath(text + "[" + index + "]");
    }

    @Override
    public String toString() {
        return text;
    }

    private static String quote(String key) {
        StringBuilder out = new StringBuilder(key.length() + 2).append('"');
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
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
