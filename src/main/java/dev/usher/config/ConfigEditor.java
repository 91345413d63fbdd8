package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Edits one site of {@code usher.yaml} as text, so that everything else in the file stays byte for byte as the user
 * wrote it: comments, blank lines, quoting, key order, other sections before and after {@code sites:}.
 *
 * <p>How: {@link SitesLayout} learns which lines each site occupies; an edit replaces exactly those lines (written
 * by {@link SiteYamlWriter}); a new site goes after the last site (before trailing comments); a delete removes the
 * site's lines and the comment lines directly above it (no blank line between), which describe it. New lines follow
 * the file's line endings (LF or CRLF) and the indentation of the sibling sites. A {@code sites:} written in flow
 * style ({@code sites: {a: b}}) is refused: it cannot be edited line by line. What the admin form makes of a site is
 * {@link SiteFormReader}'s.
 *
 * <p>Stateless; the caller validates the result with {@link ConfigLoader} before writing it.
 */
public final class ConfigEditor {
    /** Why an edit cannot be made. */
    public static final class EditException extends Exception {
        private static final long serialVersionUID = 1L;

        /** What kind of refusal, for the HTTP status. */
        public enum Kind {
            NOT_FOUND, EXISTS, REFUSED
        }

        private final Kind kind;

        EditException(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }

    /**
     * One site as it stands in the file.
     *
     * @param name      the normalised name (lower case, no {@code http://})
     * @param rawKey    the key as written
     * @param kind      {@code proxy}, {@code redirect} or {@code respond}
     * @param editable  false when its long form uses options the form does not cover
     * @param form      what the form shows (for a site that is not editable: the covered part)
     * @param yaml      its lines as in the file
     * @param firstLine 0-based line of its key
     * @param lastLine  0-based last line of its value
     * @param keyColumn 0-based column of its key
     */
    public record Entry(String name, String rawKey, String kind, boolean editable, SiteForm form, String yaml,
                        int firstLine, int lastLine, int keyColumn) {
    }

    private ConfigEditor() {
    }

    /**
     * The sites of {@code text}, in file order.
     *
     * @throws EditException when the text is not YAML or {@code sites:} is not a block mapping
     */
    public static List<Entry> sites(String text) throws EditException {
        return SitesLayout.read(text).entries();
    }

    /** The site named {@code name} (any case, with or without {@code http://}), if there is one. */
    public static Optional<Entry> site(String text, String name) throws EditException {
        return SitesLayout.read(text).find(name);
    }

    /** The YAML path of a site's key as errors name it: {@code sites."app.example.com"}. */
    public static String pathOf(String rawKey) {
        return YamlPath.ROOT.key("sites").key(rawKey).text();
    }

    /** The path of one of a site's {@code paths:} within the site, as errors print it: {@code paths."/api/"}. */
    public static String pathOfPath(String pattern) {
        return YamlPath.ROOT.key("paths").key(pattern).text();
    }

    /** The key the form's site is written under: {@code http://} for a plain-HTTP site, quoted when needed. */
    public static String keyOf(SiteForm form) {
        return SiteYamlWriter.keyOf(form);
    }

    /**
     * {@code text} with {@code form} added (when {@code oldName} is null) or put in place of the site {@code oldName}
     * (renamed when the form's name differs).
     */
    public static String put(String text, String oldName, SiteForm form) throws EditException {
        SitesLayout layout = SitesLayout.read(text);
        Optional<Entry> clash = layout.find(form.name());
        Optional<Entry> old = oldName == null ? Optional.empty() : layout.find(oldName);
        if (oldName != null && old.isEmpty()) {
            throw new EditException(EditException.Kind.NOT_FOUND, "no site named " + oldName);
        }
        if (clash.isPresent() && (old.isEmpty() || !clash.get().name().equals(old.get().name()))) {
            throw new EditException(EditException.Kind.EXISTS, "a site named " + form.name() + " exists already");
        }
        List<String> lines = new ArrayList<>(layout.lines());
        List<String> rendered = SiteYamlWriter.render(form, layout.indent(), layout.step(), layout.newline());
        if (old.isPresent()) {
            Entry entry = old.get();
            lines.subList(entry.firstLine(), entry.lastLine() + 1).clear();
            lines.addAll(entry.firstLine(), rendered);
        } else if (!layout.sitesPresent()) {
            endWithNewline(lines, layout.newline());
            if (!lines.isEmpty() && !lines.get(lines.size() - 1).isBlank()) {
                lines.add(layout.newline());
            }
            lines.add("sites:" + layout.newline());
            lines.addAll(rendered);
        } else {
            int after = layout.entries().isEmpty() ? layout.sitesKeyLine()
                    : layout.entries().get(layout.entries().size() - 1).lastLine();
            if (after == lines.size() - 1) {
                endWithNewline(lines, layout.newline());
            }
            lines.addAll(after + 1, rendered);
        }
        return layout.bom() + String.join("", lines);
    }

    /** {@code text} without the site {@code name} and the comment lines directly above it. */
    public static String delete(String text, String name) throws EditException {
        SitesLayout layout = SitesLayout.read(text);
        Entry entry = layout.find(name).orElseThrow(() ->
                new EditException(EditException.Kind.NOT_FOUND, "no site named " + name));
        List<String> lines = new ArrayList<>(layout.lines());
        int first = entry.firstLine();
        while (first > 0 && lines.get(first - 1).strip().startsWith("#") && layout.sitesKeyLine() < first - 1) {
            first--;
        }
        lines.subList(first, entry.lastLine() + 1).clear();
        return layout.bom() + String.join("", lines);
    }

    private static void endWithNewline(List<String> lines, String newline) {
        if (!lines.isEmpty() && !lines.get(lines.size() - 1).endsWith("\n")) {
            lines.set(lines.size() - 1, lines.get(lines.size() - 1) + newline);
        }
    }
}
