package dev.usher.json;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the small JSON bodies the admin API accepts into maps, lists, strings, numbers ({@link Double}), booleans and
 * null. Strict (RFC 8259): trailing commas, comments and bare words are refused with the offset of the problem.
 * Depth is bounded so a hostile body cannot exhaust the stack.
 */
public final class JsonReader {
    private static final int MAX_DEPTH = 32;

    /** A body that is not valid JSON. */
    public static final class BadJson extends Exception {
        private static final long serialVersionUID = 1L;

        public BadJson(String message) {
            super(message);
        }
    }

    private final String text;
    private int at;

    private JsonReader(String text) {
        this.text = text;
    }

    /** The value of {@code text}, which must hold exactly one JSON value. */
    public static Object parse(String text) throws BadJson {
        JsonReader reader = new JsonReader(text);
        reader.space();
        Object value = reader.value(0);
        reader.space();
        if (reader.at != text.length()) {
            throw reader.bad("unexpected text after the JSON value");
        }
        return value;
    }

    private Object value(int depth) throws BadJson {
        if (depth > MAX_DEPTH) {
            throw bad("nested too deeply");
        }
        if (at >= text.length()) {
            throw bad("the JSON ends too early");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            default -> {
                if (c == '-' || c >= '0' && c <= '9') {
                    yield number();
                }
                throw bad("unexpected character '" + c + "'");
            }
        };
    }

    private Map<String, Object> object(int depth) throws BadJson {
        Map<String, Object> result = new LinkedHashMap<>();
        at++;
        space();
        if (peek('}')) {
            at++;
            return result;
        }
        while (true) {
            space();
            if (!peek('"')) {
                throw bad("expected a key in double quotes");
            }
            String key = string();
            space();
            expect(':');
            space();
            if (result.containsKey(key)) {
                throw bad("duplicate key \"" + key + "\"");
            }
            result.put(key, value(depth + 1));
            space();
            if (peek(',')) {
                at++;
                continue;
            }
            expect('}');
            return result;
        }
    }

    private List<Object> array(int depth) throws BadJson {
        List<Object> result = new ArrayList<>();
        at++;
        space();
        if (peek(']')) {
            at++;
            return result;
        }
        while (true) {
            space();
            result.add(value(depth + 1));
            space();
            if (peek(',')) {
                at++;
                continue;
            }
            expect(']');
            return result;
        }
    }

    private String string() throws BadJson {
        at++;
        StringBuilder out = new StringBuilder();
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw bad("a control character in a string");
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                break;
            }
            char e = text.charAt(at++);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (at + 4 > text.length()) {
                        throw bad("a short \\u escape");
                    }
                    try {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw bad("a bad \\u escape");
                    }
                    at += 4;
                }
                default -> throw bad("a bad escape \\" + e);
            }
        }
        throw bad("a string is not closed");
    }

    private Double number() throws BadJson {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        try {
            return Double.valueOf(text.substring(start, at));
        } catch (NumberFormatException e) {
            at = start;
            throw bad("a bad number");
        }
    }

    private Object word(String word, Object value) throws BadJson {
        if (!text.startsWith(word, at)) {
            throw bad("unexpected word");
        }
        at += word.length();
        return value;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) throws BadJson {
        if (!peek(c)) {
            throw bad("expected '" + c + "'");
        }
        at++;
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private BadJson bad(String why) {
        return new BadJson("the body is not valid JSON: " + why + " at offset " + at);
    }
}
