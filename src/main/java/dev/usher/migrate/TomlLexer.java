package dev.usher.migrate;

import dev.usher.migrate.TomlReader.TomlException;

/**
 * The lexical half of {@link TomlReader}: the text and the position in it, the four kinds of strings with their
 * escapes, whitespace, comments and newlines, and errors that carry the line and column. The reader adds the
 * structure (tables, keys, values) on top.
 */
abstract class TomlLexer {
    final String text;
    int at;

    TomlLexer(String text) {
        this.text = text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    String basicString() throws TomlException {
        at++;
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length() || text.charAt(at) == '\n') {
                throw error("the string has no closing \"");
            }
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                escape(b);
            } else {
                control(c);
                b.append(c);
            }
        }
    }

    String multiLineBasic() throws TomlException {
        at += 3;
        skipFirstNewline();
        StringBuilder b = new StringBuilder();
        while (true) {
            if (at >= text.length()) {
                throw error("the string has no closing \"\"\"");
            }
            if (text.startsWith("\"\"\"", at)) {
                int quotes = 3;
                while (at + quotes < text.length() && text.charAt(at + quotes) == '"' && quotes < 5) {
                    quotes++;
                }
                b.append("\"".repeat(quotes - 3));
                at += quotes;
                return b.toString();
            }
            char c = text.charAt(at++);
            if (c == '\\') {
                int save = at;
                while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
                    at++;
                }
                if (at < text.length() && (text.charAt(at) == '\n' || text.startsWith("\r\n", at))) {
                    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                        at++; // a line-ending backslash trims the break and the whitespace after it
                    }
                } else {
                    at = save;
                    escape(b);
                }
            } else {
                if (c != '\n' && c != '\r') {
                    control(c);
                }
                b.append(c);
            }
        }
    }

    String literalString() throws TomlException {
        at++;
        int start = at;
        while (at < text.length() && text.charAt(at) != '\'' && text.charAt(at) != '\n') {
            control(text.charAt(at));
            at++;
        }
        if (at >= text.length() || text.charAt(at) != '\'') {
            throw error("the string has no closing '");
        }
        return text.substring(start, at++);
    }

    String multiLineLiteral() throws TomlException {
        at += 3;
        skipFirstNewline();
        int end = text.indexOf("'''", at);
        if (end < 0) {
            throw error("the string has no closing '''");
        }
        int extra = 0; // up to two quotes may stand right before the closing three
        while (extra < 2 && end + 3 + extra < text.length() && text.charAt(end + 3 + extra) == '\'') {
            extra++;
        }
        String s = text.substring(at, end + extra);
        at = end + 3 + extra;
        return s;
    }

    void escape(StringBuilder b) throws TomlException {
        if (at >= text.length()) {
            throw error("the string ends in a backslash");
        }
        char e = text.charAt(at++);
        switch (e) {
            case 'b' -> b.append('\b');
            case 't' -> b.append('\t');
            case 'n' -> b.append('\n');
            case 'f' -> b.append('\f');
            case 'r' -> b.append('\r');
            case 'e' -> b.append('\u001b');
            case '"' -> b.append('"');
            case '\\' -> b.append('\\');
            case 'u', 'U' -> {
                int n = e == 'u' ? 4 : 8;
                if (at + n > text.length() || !text.substring(at, at + n).matches("[0-9a-fA-F]+")) {
                    throw error("\\" + e + " needs " + n + " hex digits");
                }
                int cp = Integer.parseUnsignedInt(text.substring(at, at + n), 16);
                if (!Character.isValidCodePoint(cp) || cp >= 0xD800 && cp <= 0xDFFF) {
                    throw error("\\" + e + text.substring(at, at + n) + " is not a Unicode scalar value");
                }
                b.appendCodePoint(cp);
                at += n;
            }
            default -> throw error("\\" + e + " is not an escape TOML knows");
        }
    }

    void control(char c) throws TomlException {
        if (c < 0x20 && c != '\t' || c == 0x7f) {
            throw error("a control character must be escaped in a string");
        }
    }

    void skipFirstNewline() {
        if (text.startsWith("\r\n", at)) {
            at += 2;
        } else if (text.startsWith("\n", at)) {
            at++;
        }
    }

    void spaces() {
        while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
            at++;
        }
    }

    void comment() throws TomlException {
        if (at < text.length() && text.charAt(at) == '#') {
            while (at < text.length() && text.charAt(at) != '\n') {
                char c = text.charAt(at);
                if (c < 0x20 && c != '\t' && c != '\r' || c == 0x7f) {
                    throw error("a control character in a comment");
                }
                at++;
            }
        }
    }

    void endOfLine() throws TomlException {
        spaces();
        comment();
        if (!newline() && at < text.length()) {
            throw error("expected the end of the line");
        }
    }

    void skipBlankLines() throws TomlException {
        do {
            spaces();
            comment();
        } while (newline());
    }

    /** Consumes one line break ({@code \n} or {@code \r\n}); false when none is here. */
    boolean newline() {
        if (text.startsWith("\r\n", at)) {
            at += 2;
            return true;
        }
        if (at < text.length() && text.charAt(at) == '\n') {
            at++;
            return true;
        }
        return false;
    }

    void skipSpaceCommentsAndNewlines() throws TomlException {
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                at++;
            } else if (c == '#') {
                comment();
            } else {
                return;
            }
        }
    }

    TomlException error(String message) {
        int line = 1;
        int lineStart = 0;
        for (int i = 0; i < Math.min(at, text.length()); i++) {
            if (text.charAt(i) == '\n') {
                line++;
                lineStart = i + 1;
            }
        }
        return new TomlException("line " + line + ", column " + (at - lineStart + 1) + ": " + message);
    }
}
