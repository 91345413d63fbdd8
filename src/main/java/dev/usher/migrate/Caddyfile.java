package dev.usher.migrate;

import dev.usher.migrate.CaddyfileLexer.Token;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A Caddyfile read into its global options block and its site blocks, each a list of directives (a name, its
 * arguments, and a block of sub-directives), with snippets ({@code (name) { ... }}) and {@code import} (of a snippet,
 * with {@code {args[N]}}, or of files by glob) expanded where they are used, as Caddy does before it reads
 * directives. A file with a single site may leave out the braces.
 */
final class Caddyfile {
    private static final int MAX_IMPORT_DEPTH = 10;

    /** A directive: {@code name args... { block }}. */
    record Directive(String name, List<String> args, List<Directive> block, String file, int line) {
        String where() {
            return "line " + line;
        }
    }

    /** A site block: its addresses and directives. */
    record SiteBlock(List<String> addresses, List<Directive> directives, String file, int line) {
    }

    private final List<Directive> global;
    private final List<SiteBlock> sites;

    private Caddyfile(List<Directive> global, List<SiteBlock> sites) {
        this.global = global;
        this.sites = sites;
    }

    List<Directive> global() {
        return global;
    }

    List<SiteBlock> sites() {
        return sites;
    }

    static Caddyfile read(Path file, Function<String, String> env) throws ImportException {
        Map<String, List<Token>> snippets = new HashMap<>();
        List<Token> tokens = new Imports(env, snippets).expand(lex(file, env, snippets),
                file.toAbsolutePath().getParent(), 0);
        return parse(tokens);
    }

    private static List<Token> lex(Path file, Function<String, String> env, Map<String, List<Token>> snippets)
            throws ImportException {
        List<Token> all = CaddyfileLexer.tokens(SourceFiles.text(file), file.getFileName().toString(), env);
        List<Token> rest = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Token t = all.get(i);
            boolean atLineStart = i == 0 || all.get(i - 1).logicalLine() != t.logicalLine();
            if (atLineStart && !t.quoted() && t.text().matches("\\(.+\\)") && i + 1 < all.size()
                    && all.get(i + 1).is("{")) {
                int close = matching(all, i + 1);
                snippets.put(t.text().substring(1, t.text().length() - 1), List.copyOf(all.subList(i + 2, close)));
                i = close;
            } else {
                rest.add(t);
            }
        }
        return rest;
    }

    /**
     * Expands {@code import} lines. Imported tokens get logical line numbers of their own (above any real line), so
     * that a directive never runs on into what stands before or after the import.
     */
    private static final class Imports {
        private final Function<String, String> env;
        private final Map<String, List<Token>> snippets;
        private int nextLine = 1 << 30;

        Imports(Function<String, String> env, Map<String, List<Token>> snippets) {
            this.env = env;
            this.snippets = snippets;
        }

        /** The tokens with every {@code import} line replaced by what it imports. */
        List<Token> expand(List<Token> tokens, Path dir, int depth) throws ImportException {
            List<Token> out = new ArrayList<>();
            for (int i = 0; i < tokens.size(); i++) {
                Token t = tokens.get(i);
                boolean atLineStart = i == 0 || tokens.get(i - 1).logicalLine() != t.logicalLine();
                if (!atLineStart || !t.is("import")) {
                    out.add(t);
                    continue;
                }
                int j = i + 1;
                List<String> args = new ArrayList<>();
                List<Token> block = List.of();
                while (j < tokens.size() && tokens.get(j).logicalLine() == t.logicalLine()) {
                    if (tokens.get(j).is("{")) {
                        int close = matching(tokens, j);
                        block = tokens.subList(j + 1, close);
                        j = close + 1;
                        break;
                    }
                    args.add(tokens.get(j).text());
                    j++;
                }
                i = j - 1;
                if (args.isEmpty()) {
                    throw new ImportException(t.file() + ":" + t.line() + ": import needs a snippet or a file");
                }
                if (depth >= MAX_IMPORT_DEPTH) {
                    throw new ImportException(t.file() + ":" + t.line() + ": imports nested more than "
                            + MAX_IMPORT_DEPTH + " deep (a cycle?)");
                }
                List<Token> imported;
                if (snippets.containsKey(args.get(0))) {
                    imported = substitute(snippets.get(args.get(0)), args.subList(1, args.size()), block);
                } else {
                    imported = new ArrayList<>();
                    for (Path f : glob(dir, args.get(0), t)) {
                        imported.addAll(lex(f, env, snippets));
                    }
                }
                out.addAll(expand(renumber(imported), dir, depth + 1));
            }
            return out;
        }

        private List<Token> renumber(List<Token> tokens) {
            List<Token> out = new ArrayList<>(tokens.size());
            int previous = Integer.MIN_VALUE;
            for (Token t : tokens) {
                if (t.logicalLine() != previous) {
                    previous = t.logicalLine();
                    nextLine++;
                }
                out.add(new Token(t.text(), t.file(), t.line(), nextLine, t.quoted()));
            }
            return out;
        }
    }

    /**
     * A snippet's tokens with {@code {args[N]}} (and the old {@code {args.N}}, and {@code {args[:]}}) filled in, and
     * {@code {block}} replaced by the block the import line gave.
     */
    private static List<Token> substitute(List<Token> snippet, List<String> args, List<Token> block) {
        List<Token> out = new ArrayList<>();
        for (Token t : snippet) {
            if (!t.quoted() && t.text().equals("{block}")) {
                out.addAll(block);
                continue;
            }
            if (!t.quoted() && t.text().equals("{args[:]}")) {
                args.forEach(a -> out.add(t.withText(a)));
                continue;
            }
            String text = t.text();
            for (int n = 0; n < 10; n++) {
                String value = n < args.size() ? args.get(n) : "";
                text = text.replace("{args[" + n + "]}", value).replace("{args." + n + "}", value);
            }
            out.add(t.withText(text));
        }
        return out;
    }

    private static List<Path> glob(Path dir, String pattern, Token at) throws ImportException {
        Path target = dir.resolve(pattern);
        if (!pattern.contains("*")) {
            if (!Files.isRegularFile(target)) {
                throw new ImportException(at.file() + ":" + at.line() + ": import " + pattern + ": no such snippet "
                        + "or file");
            }
            return List.of(target);
        }
        Path parent = target.getParent();
        PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + target.getFileName());
        try (Stream<Path> files = Files.list(parent)) {
            return files.filter(p -> matcher.matches(p.getFileName()) && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new ImportException(at.file() + ":" + at.line() + ": import " + pattern + ": " + e.getMessage());
        }
    }

    private static Caddyfile parse(List<Token> tokens) throws ImportException {
        List<Directive> global = List.of();
        List<SiteBlock> sites = new ArrayList<>();
        int i = 0;
        if (!tokens.isEmpty() && tokens.get(0).is("{")) {
            int close = matching(tokens, 0);
            global = directives(tokens, 1, close);
            i = close + 1;
        }
        while (i < tokens.size()) {
            Token first = tokens.get(i);
            List<String> addresses = new ArrayList<>();
            int j = i;
            while (j < tokens.size() && !tokens.get(j).is("{")) {
                Token t = tokens.get(j);
                if (j > i && t.logicalLine() != tokens.get(j - 1).logicalLine()
                        && !tokens.get(j - 1).text().endsWith(",")) {
                    break; // keys end with their line unless it ends with a comma
                }
                for (String part : t.text().split(",")) {
                    if (!part.isBlank()) {
                        addresses.add(part.strip());
                    }
                }
                j++;
            }
            if (j < tokens.size() && tokens.get(j).is("{")) {
                int close = matching(tokens, j);
                sites.add(new SiteBlock(addresses, directives(tokens, j + 1, close), first.file(), first.line()));
                i = close + 1;
            } else if (sites.isEmpty()) {
                sites.add(new SiteBlock(addresses, directives(tokens, j, tokens.size()), first.file(), first.line()));
                i = tokens.size(); // one site without braces: the rest of the file is its body
            } else {
                throw new ImportException(first.file() + ":" + first.line() + ": expected { after the site address "
                        + String.join(", ", addresses));
            }
        }
        return new Caddyfile(global, sites);
    }

    /** The directives between {@code from} and {@code to} (exclusive). */
    private static List<Directive> directives(List<Token> tokens, int from, int to) throws ImportException {
        List<Directive> out = new ArrayList<>();
        int i = from;
        while (i < to) {
            Token name = tokens.get(i);
            List<String> args = new ArrayList<>();
            int j = i + 1;
            while (j < to && tokens.get(j).logicalLine() == name.logicalLine() && !tokens.get(j).is("{")) {
                args.add(tokens.get(j).text());
                j++;
            }
            List<Directive> block = List.of();
            if (j < to && tokens.get(j).is("{") && tokens.get(j).logicalLine() == name.logicalLine()) {
                int close = matching(tokens, j);
                block = directives(tokens, j + 1, close);
                j = close + 1;
            }
            out.add(new Directive(name.text(), List.copyOf(args), block, name.file(), name.line()));
            i = j;
        }
        return out;
    }

    /** The index of the {@code }} that closes the {@code {} at {@code open}. */
    private static int matching(List<Token> tokens, int open) throws ImportException {
        int depth = 0;
        for (int i = open; i < tokens.size(); i++) {
            if (tokens.get(i).is("{")) {
                depth++;
            } else if (tokens.get(i).is("}")) {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        Token t = tokens.get(open);
        throw new ImportException(t.file() + ":" + t.line() + ": this { is never closed");
    }
}
