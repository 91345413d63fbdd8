package dev.usher.migrate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads TOML (v1.0) into maps, lists, strings, longs, doubles and booleans: the shapes SnakeYAML gives for the same
 * document in YAML, so that one converter reads Traefik's dynamic configuration in either language. Everything in
 * TOML but dates and times is read: tables, arrays of tables, dotted and quoted keys, basic and literal strings
 * (multi-line too, with every escape), integers in four bases, floats, booleans, arrays and inline tables. A date
 * or time is refused with its line (Traefik's configuration has none). Redefining a key or a table is an error, as
 * the specification says. Errors carry the line and column.
 */
final class TomlReader extends TomlLexer {
    /** A document that is not TOML this reader accepts. */
    static final class TomlException extends Exception {
        private static final long serialVersionUID = 1L;

        TomlException(String message) {
            super(message);
        }
    }

    private final Map<String, Object> root = new LinkedHashMap<>();
    /** Tables defined by a header or a dotted key, which may not be defined again. */
    private final Set<Map<String, Object>> defined = Collections.newSetFromMap(
            new IdentityHashMap<>());
    /** Inline tables and arrays, which are closed to later additions. */
    private final Set<Object> sealed = Collections.newSetFromMap(
            new IdentityHashMap<>());

    private TomlReader(String text) {
        super(text);
    }

    static Map<String, Object> parse(String text) throws TomlException {
        TomlReader r = new TomlReader(text);
        r.document();
        return r.root;
    }

    private void document() throws TomlException {
        Map<String, Object> table = root;
        while (true) {
            skipBlankLines();
            if (at >= text.length()) {
                return;
            }
            char c = text.charAt(at);
            if (c == '[') {
                table = header();
            } else {
                keyValue(table);
            }
            endOfLine();
        }
    }

    private Map<String, Object> header() throws TomlException {
        boolean array = text.startsWith("[[", at);
        at += array ? 2 : 1;
        spaces();
        List<String> key = key();
        spaces();
        if (!text.startsWith(array ? "]]" : "]", at)) {
            throw error("expected " + (array ? "]]" : "]") + " after the table name");
        }
        at += array ? 2 : 1;
        Map<String, Object> parent = root;
        for (int i = 0; i < key.size() - 1; i++) {
            parent = descend(parent, key.get(i), true);
        }
        String last = key.get(key.size() - 1);
        Object existing = parent.get(last);
        if (array) {
            List<Object> list;
            if (existing == null) {
                list = new ArrayList<>();
                parent.put(last, list);
            } else if (existing instanceof List<?> l && !sealed.contains(l)) {
                @SuppressWarnings("unchecked")
                List<Object> typed = (List<Object>) l;
                list = typed;
            } else {
                throw error("\"" + String.join(".", key) + "\" is already defined, not as an array of tables");
            }
            Map<String, Object> table = new LinkedHashMap<>();
            list.add(table);
            defined.add(table);
            return table;
        }
        if (existing == null) {
            Map<String, Object> table = new LinkedHashMap<>();
            parent.put(last, table);
            defined.add(table);
            return table;
        }
        if (existing instanceof Map<?, ?> m && !defined.contains(m) && !sealed.contains(m)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> typed = (Map<String, Object>) m;
            defined.add(typed);
            return typed;
        }
        throw error("the table [" + String.join(".", key) + "] is defined twice");
    }

    /** The table under {@code key} in {@code parent}, made if missing; the last table of an array of tables. */
    private Map<String, Object> descend(Map<String, Object> parent, String key, boolean viaHeader)
            throws TomlException {
        Object v = parent.get(key);
        if (v == null) {
            Map<String, Object> made = new LinkedHashMap<>();
            parent.put(key, made);
            return made;
        }
        if (v instanceof Map<?, ?> m && !sealed.contains(m) && (viaHeader || !defined.contains(m))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> typed = (Map<String, Object>) m;
            return typed;
        }
        if (viaHeader && v instanceof List<?> l && !sealed.contains(l) && !l.isEmpty()
                && l.get(l.size() - 1) instanceof Map<?, ?> m) {
            @SuppressWarnings("unchecked")
            Map<String, Object> typed = (Map<String, Object>) m;
            return typed;
        }
        throw error("\"" + key + "\" is already a value, not a table");
    }

    private void keyValue(Map<String, Object> table) throws TomlException {
        List<String> key = key();
        spaces();
        if (at >= text.length() || text.charAt(at) != '=') {
            throw error("expected = after the key");
        }
        at++;
        spaces();
        Object value = value();
        Map<String, Object> target = table;
        for (int i = 0; i < key.size() - 1; i++) {
            target = descend(target, key.get(i), false);
        }
        String last = key.get(key.size() - 1);
        if (target.containsKey(last)) {
            throw error("the key \"" + String.join(".", key) + "\" is defined twice");
        }
        target.put(last, value);
    }

    private List<String> key() throws TomlException {
        List<String> parts = new ArrayList<>();
        while (true) {
            spaces();
            if (at >= text.length()) {
                throw error("expected a key");
            }
            char c = text.charAt(at);
            if (c == '"') {
                parts.add(basicString());
            } else if (c == '\'') {
                parts.add(literalString());
            } else {
                int start = at;
                while (at < text.length() && isBareKeyChar(text.charAt(at))) {
                    at++;
                }
                if (start == at) {
                    throw error("expected a key");
                }
                parts.add(text.substring(start, at));
            }
            spaces();
            if (at < text.length() && text.charAt(at) == '.') {
                at++;
                continue;
            }
            return parts;
        }
    }

    private static boolean isBareKeyChar(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-';
    }

    private Object value() throws TomlException {
        if (at >= text.length()) {
            throw error("expected a value");
        }
        char c = text.charAt(at);
        switch (c) {
            case '"':
                return text.startsWith("\"\"\"", at) ? multiLineBasic() : basicString();
            case '\'':
                return text.startsWith("'''", at) ? multiLineLiteral() : literalString();
            case '[':
                return array();
            case '{':
                return inlineTable();
            case 't':
                return word("true", Boolean.TRUE);
            case 'f':
                return word("false", Boolean.FALSE);
            default:
                return number();
        }
    }

    private Object word(String word, Object value) throws TomlException {
        if (!text.startsWith(word, at)) {
            throw error("expected a value (a string needs quotes)");
        }
        at += word.length();
        return value;
    }

    private Object number() throws TomlException {
        int start = at;
        while (at < text.length() && "+-0123456789abcdefABCDEFxobinf._:TZ".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        String raw = text.substring(start, at);
        if (raw.isEmpty()) {
            throw error("expected a value (a string needs quotes)");
        }
        if (raw.matches("\\d{4}-\\d{2}-\\d{2}.*") || raw.matches("\\d{2}:\\d{2}.*")) {
            throw error("dates and times are not read by usher import");
        }
        String digits = raw.replace("_", "");
        if (raw.contains("__") || raw.startsWith("_") || raw.endsWith("_")) {
            throw error("\"" + raw + "\" is not a number (an underscore must sit between digits)");
        }
        try {
            if (digits.startsWith("0x")) {
                return Long.parseLong(digits.substring(2), 16);
            }
            if (digits.startsWith("0o")) {
                return Long.parseLong(digits.substring(2), 8);
            }
            if (digits.startsWith("0b")) {
                return Long.parseLong(digits.substring(2), 2);
            }
            if (digits.matches("[+-]?(inf|nan)")) {
                return digits.endsWith("inf") ? (digits.startsWith("-") ? Double.NEGATIVE_INFINITY
                        : Double.POSITIVE_INFINITY) : Double.NaN;
            }
            if (digits.matches("[+-]?(0|[1-9]\\d*)")) {
                return Long.parseLong(digits);
            }
            if (digits.matches("[+-]?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
                return Double.parseDouble(digits);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw error("\"" + raw + "\" is not a value (a string needs quotes)");
    }

    private List<Object> array() throws TomlException {
        at++;
        List<Object> list = new ArrayList<>();
        while (true) {
            skipSpaceCommentsAndNewlines();
            if (at < text.length() && text.charAt(at) == ']') {
                at++;
                sealed.add(list);
                return list;
            }
            list.add(value());
            skipSpaceCommentsAndNewlines();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
            } else if (at >= text.length() || text.charAt(at) != ']') {
                throw error("expected , or ] in the array");
            }
        }
    }

    private Map<String, Object> inlineTable() throws TomlException {
        at++;
        Map<String, Object> table = new LinkedHashMap<>();
        spaces();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            sealed.add(table);
            return table;
        }
        while (true) {
            keyValue(table);
            spaces();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            if (at < text.length() && text.charAt(at) == '}') {
                at++;
                sealed.add(table);
                return table;
            }
            throw error("expected , or } in the inline table (it must stay on one line)");
        }
    }

}
