package dev.usher.migrate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cuts a Caddyfile into tokens the way Caddy's lexer does: words separated by white space; {@code "..."} (with
 * {@code \"}) and {@code `...`} quoting; {@code <<MARKER} heredocs (the closing marker's indentation taken off every
 * line); {@code #} comments at the start of a token; a backslash at the end of a line joining it with the next.
 * Environment placeholders {@code {$NAME}} and {@code {$NAME:default}} are replaced before, as Caddy does. Each token
 * remembers its file, its line and its logical line (the line its directive started on).
 */
final class CaddyfileLexer {
    private static final Pattern ENV = Pattern.compile("\\{\\$([A-Za-z0-9_]+)(?::([^}]*))?}");

    /** One token. {@code quoted} tokens are never braces or directive names. */
    record Token(String text, String file, int line, int logicalLine, boolean quoted) {
        boolean is(String s) {
            return !quoted && text.equals(s);
        }

        Token withText(String other) {
            return new Token(other, file, line, logicalLine, quoted);
        }
    }

    private CaddyfileLexer() {
    }

    static List<Token> tokens(String text, String file, Function<String, String> env) throws ImportException {
        String s = replaceEnv(text.startsWith("\uFEFF") ? text.substring(1) : text, env);
        List<Token> out = new ArrayList<>();
        int line = 1;
        int logical = 1;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\n') {
                line++;
                logical = line;
                i++;
            } else if (c == '\\' && (s.startsWith("\\\n", i) || s.startsWith("\\\r\n", i))) {
                i += s.charAt(i + 1) == '\r' ? 3 : 2;
                line++; // the next line continues this one's directive
            } else if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '#') {
                while (i < s.length() && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '"' || c == '`') {
                int startLine = line;
                StringBuilder b = new StringBuilder();
                i++;
                while (true) {
                    if (i >= s.length()) {
                        throw new ImportException(file + ":" + startLine + ": a quoted token has no closing " + c);
                    }
                    char d = s.charAt(i);
                    if (c == '"' && d == '\\' && i + 1 < s.length() && s.charAt(i + 1) == '"') {
                        b.append('"');
                        i += 2;
                        continue;
                    }
                    if (d == c) {
                        i++;
                        break;
                    }
                    if (d == '\n') {
                        line++;
                    }
                    b.append(d);
                    i++;
                }
                out.add(new Token(b.toString(), file, startLine, logical, true));
            } else if (s.startsWith("<<", i) && i + 2 < s.length() && Character.isLetter(s.charAt(i + 2))) {
                int end = s.indexOf('\n', i);
                String marker = s.substring(i + 2, end < 0 ? s.length() : end).strip();
                int startLine = line;
                int bodyStart = end + 1;
                Matcher close = Pattern.compile("(?m)^([ \\t]*)" + Pattern.quote(marker) + "(?=\\s|$)")
                        .matcher(s).region(bodyStart, s.length());
                if (end < 0 || !close.find()) {
                    throw new ImportException(file + ":" + startLine + ": heredoc <<" + marker + " is not closed");
                }
                String indent = close.group(1);
                String body = s.substring(bodyStart, Math.max(bodyStart, close.start() - 1));
                StringBuilder b = new StringBuilder();
                for (String l : body.split("\n", -1)) {
                    b.append(l.startsWith(indent) ? l.substring(indent.length()) : l.strip()).append('\n');
                }
                String value = b.length() > 0 ? b.substring(0, b.length() - 1) : "";
                line += (int) s.substring(i, close.end()).chars().filter(ch -> ch == '\n').count();
                i = close.end();
                out.add(new Token(value, file, startLine, logical, true));
            } else {
                int start = i;
                while (i < s.length() && !Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
                out.add(new Token(s.substring(start, i), file, line, logical, false));
            }
        }
        return out;
    }

    private static String replaceEnv(String text, Function<String, String> env) {
        Matcher m = ENV.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = env.apply(m.group(1));
            if (value == null) {
                value = m.group(2) == null ? "" : m.group(2);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The environment of this process. */
    static Function<String, String> processEnvironment() {
        Map<String, String> env = System.getenv();
        return env::get;
    }
}
