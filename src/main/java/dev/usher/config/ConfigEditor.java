package dev.usher.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * Edits one site of {@code usher.yaml} as text, so that everything else in the file stays byte for byte as the user
 * wrote it: comments, blank lines, quoting, key order, other sections before and after {@code sites:}.
 *
 * <p>How: the text is composed (as the loader does) only to learn, from node positions, which lines each site
 * occupies: from its key's line to the last line of its value, not counting blank or comment lines after it (those
 * stay where they are, they usually introduce the next site). An edit replaces exactly those lines; a new site goes
 * after the last site (before trailing comments); a delete removes the site's lines and the comment lines directly
 * above it (no blank line between), which describe it. New lines follow the file's line endings (LF or CRLF) and the
 * indentation of the sibling sites. A {@code sites:} written in flow style ({@code sites: {a: b}}) is refused: it
 * cannot be edited line by line.
 *
 * <p>Stateless; the caller validates the result with {@link ConfigLoader} before writing it.
 */
public final class ConfigEditor {
    private static final Set<String> FORM_KEYS = Set.of("to", "tls", "policy", "gzip", "compress", "max_body",
            "security_headers", "health");
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./][A-Za-z0-9_./:@+~*-]*");
    private static final Pattern NOT_A_STRING = Pattern.compile(
            "null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
                    + "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
    private static final Pattern BARE_KEY = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

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

    /** The file's text cut into lines, with what the positions of {@code sites:} say. */
    private record Layout(String bom, List<String> lines, String newline, List<Entry> entries,
                          int sitesKeyLine, boolean sitesPresent, int indent, int step) {
    }

    private ConfigEditor() {
    }

    /**
     * The sites of {@code text}, in file order.
     *
     * @throws EditException when the text is not YAML or {@code sites:} is not a block mapping
     */
    public static List<Entry> sites(String text) throws EditException {
        return layout(text).entries();
    }

    /** The site named {@code name} (any case, with or without {@code http://}), if there is one. */
    public static Optional<Entry> site(String text, String name) throws EditException {
        return find(layout(text), name);
    }

    /** The YAML path of a site's key as errors name it: {@code sites."app.example.com"}. */
    public static String pathOf(String rawKey) {
        return YamlPath.ROOT.key("sites").key(rawKey).text();
    }

    /** The key the form's site is written under: {@code http://} for a plain-HTTP site, quoted when needed. */
    public static String keyOf(SiteForm form) {
        return "off".equals(form.tls()) ? "http://" + form.name() : form.name();
    }

    /**
     * {@code text} with {@code form} added (when {@code oldName} is null) or put in place of the site {@code oldName}
     * (renamed when the form's name differs).
     */
    public static String put(String text, String oldName, SiteForm form) throws EditException {
        Layout layout = layout(text);
        Optional<Entry> clash = find(layout, form.name());
        Optional<Entry> old = oldName == null ? Optional.empty() : find(layout, oldName);
        if (oldName != null && old.isEmpty()) {
            throw new EditException(EditException.Kind.NOT_FOUND, "no site named " + oldName);
        }
        if (clash.isPresent() && (old.isEmpty() || !clash.get().name().equals(old.get().name()))) {
            throw new EditException(EditException.Kind.EXISTS, "a site named " + form.name() + " exists already");
        }
        List<String> lines = new ArrayList<>(layout.lines());
        List<String> rendered = render(form, layout.indent(), layout.step(), layout.newline());
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
        Layout layout = layout(text);
        Entry entry = find(layout, name).orElseThrow(() ->
                new EditException(EditException.Kind.NOT_FOUND, "no site named " + name));
        List<String> lines = new ArrayList<>(layout.lines());
        int first = entry.firstLine();
        while (first > 0 && lines.get(first - 1).strip().startsWith("#") && layout.sitesKeyLine() < first - 1) {
            first--;
        }
        lines.subList(first, entry.lastLine() + 1).clear();
        return layout.bom() + String.join("", lines);
    }

    /** The site's lines as the API writes them: the shortest form that says everything. */
    static List<String> render(SiteForm form, int indent, int step, String newline) {
        String pad = " ".repeat(indent);
        String inner = " ".repeat(indent + step);
        String key = quoteKey(keyOf(form));
        String to = form.upstreams().size() == 1 ? scalar(form.upstreams().get(0))
                : "[" + String.join(", ", form.upstreams().stream().map(ConfigEditor::scalar).toList()) + "]";
        List<String> out = new ArrayList<>();
        if (form.shortForm()) {
            out.add(pad + key + ": " + to + newline);
            return out;
        }
        out.add(pad + key + ":" + newline);
        out.add(inner + "to: " + to + newline);
        if ("files".equals(form.tls())) {
            out.add(inner + "tls: {cert: " + scalar(nullToEmpty(form.cert())) + ", key: "
                    + scalar(nullToEmpty(form.key())) + "}" + newline);
        } else if (form.tls() != null && !form.tls().equals("auto") && !form.tls().equals("off")) {
            out.add(inner + "tls: " + scalar(form.tls()) + newline);
        }
        if (form.policy() != null && !form.policy().equals("round_robin")) {
            out.add(inner + "policy: " + scalar(form.policy()) + newline);
        }
        if (form.gzip() != null && !form.gzip()) {
            out.add(inner + "gzip: false" + newline);
        }
        if (form.maxBody() != null) {
            out.add(inner + "max_body: " + scalar(form.maxBody()) + newline);
        }
        if (form.securityHeaders() != null && form.securityHeaders()) {
            out.add(inner + "security_headers: true" + newline);
        }
        if (form.healthPath() != null) {
            out.add(inner + "health: {path: " + scalar(form.healthPath()) + "}" + newline);
        }
        return out;
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    /** A scalar written plain when YAML reads it back as the same string, double-quoted otherwise. */
    static String scalar(String value) {
        if (PLAIN.matcher(value).matches() && !value.endsWith(":") && !NOT_A_STRING.matcher(value).matches()) {
            return value;
        }
        return quoted(value);
    }

    private static String quoteKey(String key) {
        if (BARE_KEY.matcher(key).matches() && !NOT_A_STRING.matcher(key).matches()) {
            return key;
        }
        if (key.startsWith("http://") && BARE_KEY.matcher(key.substring(7)).matches()) {
            return key;
        }
        return quoted(key);
    }

    private static String quoted(String value) {
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

    private static void endWithNewline(List<String> lines, String newline) {
        if (!lines.isEmpty() && !lines.get(lines.size() - 1).endsWith("\n")) {
            lines.set(lines.size() - 1, lines.get(lines.size() - 1) + newline);
        }
    }

    private static Optional<Entry> find(Layout layout, String name) {
        String wanted = normalise(name);
        return layout.entries().stream().filter(e -> e.name().equals(wanted)).findFirst();
    }

    private static String normalise(String raw) {
        try {
            return SiteNames.parse(raw).name();
        } catch (BadValue e) {
            return raw.strip().toLowerCase(Locale.ROOT);
        }
    }

    private static Layout layout(String whole) throws EditException {
        String bom = whole.startsWith("\uFEFF") ? "\uFEFF" : "";
        String text = whole.substring(bom.length());
        List<String> lines = splitLines(text);
        String newline = text.contains("\r\n") ? "\r\n" : "\n";
        Optional<Node> root;
        try {
            root = new Compose(LoadSettings.builder().setSchema(new CoreSchema()).setAllowNonScalarKeys(true).build())
                    .composeString(text);
        } catch (YamlEngineException e) {
            throw new EditException(EditException.Kind.REFUSED, "the config file is not valid YAML: "
                    + e.getMessage());
        }
        if (root.isEmpty() || NodeWalker.isNull(root.get())) {
            return new Layout(bom, lines, newline, List.of(), -1, false, 2, 2);
        }
        if (!(root.get() instanceof MappingNode top)) {
            throw new EditException(EditException.Kind.REFUSED, "the config file is not a mapping of settings");
        }
        if (top.getFlowStyle() == FlowStyle.FLOW) {
            throw new EditException(EditException.Kind.REFUSED, "the config file is written in flow style; edit it "
                    + "by hand");
        }
        for (NodeTuple tuple : top.getValue()) {
            if (tuple.getKeyNode() instanceof ScalarNode key && key.getValue().equals("sites")) {
                return sitesLayout(bom, lines, newline, key, tuple.getValueNode());
            }
        }
        return new Layout(bom, lines, newline, List.of(), -1, false, 2, 2);
    }

    private static Layout sitesLayout(String bom, List<String> lines, String newline, ScalarNode sitesKey,
                                      Node sites) throws EditException {
        int sitesLine = line(sitesKey.getStartMark());
        if (NodeWalker.isNull(sites)) {
            return new Layout(bom, lines, newline, List.of(), sitesLine, true, 2, 2);
        }
        if (!(sites instanceof MappingNode map)) {
            throw new EditException(EditException.Kind.REFUSED, "sites is not a mapping of site names; fix it by "
                    + "hand");
        }
        if (map.getFlowStyle() == FlowStyle.FLOW) {
            throw new EditException(EditException.Kind.REFUSED, "sites is written in flow style ({...}); edit it by "
                    + "hand, or rewrite it as one site per line");
        }
        int mapEnd = endLine(map.getEndMark(), lines);
        List<NodeTuple> tuples = map.getValue();
        List<Entry> entries = new ArrayList<>();
        int indent = -1;
        int step = -1;
        for (int i = 0; i < tuples.size(); i++) {
            NodeTuple tuple = tuples.get(i);
            if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
                throw new EditException(EditException.Kind.REFUSED, "a site key is not a name; fix it by hand");
            }
            int first = line(key.getStartMark());
            int column = key.getStartMark().map(Mark::getColumn).orElse(0);
            indent = indent < 0 ? column : indent;
            Node value = tuple.getValueNode();
            if (step < 0 && value instanceof MappingNode inner && inner.getFlowStyle() != FlowStyle.FLOW
                    && !inner.getValue().isEmpty()) {
                int innerColumn = inner.getValue().get(0).getKeyNode().getStartMark().map(Mark::getColumn).orElse(0);
                step = innerColumn > column ? innerColumn - column : -1;
            }
            int bound = i + 1 < tuples.size() ? line(tuples.get(i + 1).getKeyNode().getStartMark()) - 1 : mapEnd;
            int last = Math.min(bound, Math.max(first, endLine(value.getEndMark(), lines)));
            while (last > first && isBlankOrComment(lines.get(last))) {
                last--;
            }
            String name = normalise(key.getValue());
            boolean editable = editable(value) && writtenWithin(value, first, last);
            entries.add(new Entry(name, key.getValue(), kind(value), editable, form(name, key.getValue(),
                    value), String.join("", lines.subList(first, last + 1)), first, last, column));
        }
        return new Layout(bom, lines, newline, List.copyOf(entries), sitesLine, true, indent < 0 ? 2 : indent,
                step < 0 ? 2 : step);
    }

    /** The 0-based last line a node reaches: an end mark at column 0 is the start of the next line. */
    private static int endLine(Optional<Mark> end, List<String> lines) {
        if (end.isEmpty()) {
            return lines.size() - 1;
        }
        int line = end.get().getLine() - (end.get().getColumn() == 0 ? 1 : 0);
        return Math.max(0, Math.min(line, lines.size() - 1));
    }

    private static int line(Optional<Mark> mark) {
        return mark.map(Mark::getLine).orElse(0);
    }

    private static boolean isBlankOrComment(String line) {
        String s = line.strip();
        return s.isEmpty() || s.startsWith("#");
    }

    private static List<String> splitLines(String text) {
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                lines.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            lines.add(text.substring(start));
        }
        return lines;
    }

    private static String kind(Node value) {
        if (value instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                String key = keyText(t);
                if (key.equals("redirect")) {
                    return "redirect";
                }
                if (key.equals("respond")) {
                    return "respond";
                }
            }
        }
        return "proxy";
    }

    private static boolean editable(Node value) {
        if (value instanceof ScalarNode) {
            return true;
        }
        if (value instanceof SequenceNode list) {
            return list.getValue().stream().allMatch(n -> n instanceof ScalarNode);
        }
        if (!(value instanceof MappingNode map)) {
            return false;
        }
        boolean hasTo = false;
        for (NodeTuple t : map.getValue()) {
            String key = keyText(t);
            Node v = t.getValueNode();
            if (!FORM_KEYS.contains(key)) {
                return false;
            }
            hasTo |= key.equals("to");
            if (key.equals("to") && !editable(v) || key.equals("to") && v instanceof MappingNode) {
                return false;
            }
            if (key.equals("health") && !(v instanceof MappingNode health && health.getValue().size() == 1
                    && keyText(health.getValue().get(0)).equals("path"))) {
                return false;
            }
            if (!key.equals("to") && !key.equals("health") && !key.equals("tls") && !(v instanceof ScalarNode)) {
                return false;
            }
        }
        return hasTo;
    }

    /**
     * True when the value and its keys are written within the site's own lines: not an alias of, or merged
     * ({@code <<: *base}) from, another place in the file, which the form would silently flatten.
     */
    private static boolean writtenWithin(Node value, int first, int last) {
        int line = line(value.getStartMark());
        if (line < first || line > last) {
            return false;
        }
        if (value instanceof MappingNode map) {
            for (NodeTuple t : map.getValue()) {
                int keyLine = line(t.getKeyNode().getStartMark());
                if (keyLine < first || keyLine > last || !writtenWithin(t.getValueNode(), first, last)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static String keyText(NodeTuple t) {
        return t.getKeyNode() instanceof ScalarNode s ? s.getValue() : "";
    }

    /** The form's view of a site's value (the parts it covers). */
    private static SiteForm form(String name, String rawKey, Node value) {
        boolean plain = rawKey.strip().toLowerCase(Locale.ROOT).startsWith("http://");
        if (!(value instanceof MappingNode map)) {
            return new SiteForm(name, upstreams(value), plain ? "off" : null, null, null, null, null, null, null,
                    null);
        }
        List<String> ups = List.of();
        String tls = plain ? "off" : null;
        String cert = null;
        String key = null;
        String policy = null;
        Boolean gzip = null;
        String maxBody = null;
        Boolean security = null;
        String health = null;
        for (NodeTuple t : map.getValue()) {
            Node v = t.getValueNode();
            String text = v instanceof ScalarNode s ? s.getValue() : null;
            switch (keyText(t)) {
                case "to" -> ups = upstreams(v);
                case "tls" -> {
                    if (v instanceof MappingNode files) {
                        tls = "files";
                        for (NodeTuple f : files.getValue()) {
                            String fileText = f.getValueNode() instanceof ScalarNode s ? s.getValue() : null;
                            if (keyText(f).equals("cert")) {
                                cert = fileText;
                            } else if (keyText(f).equals("key")) {
                                key = fileText;
                            }
                        }
                    } else if (text != null) {
                        tls = text.equals("true") ? "auto" : text.equals("false") ? "off"
                                : text.toLowerCase(Locale.ROOT);
                    }
                }
                case "policy" -> policy = text;
                case "gzip", "compress" -> gzip = text == null ? null : !text.equals("false");
                case "max_body" -> maxBody = text;
                case "security_headers" -> security = text == null ? null : text.equals("true");
                case "health" -> {
                    if (v instanceof MappingNode h) {
                        for (NodeTuple f : h.getValue()) {
                            if (keyText(f).equals("path") && f.getValueNode() instanceof ScalarNode s) {
                                health = s.getValue();
                            }
                        }
                    }
                }
                default -> {
                    // not covered by the form: the site is shown read-only (see editable)
                }
            }
        }
        return new SiteForm(name, ups, tls, cert, key, policy, gzip, maxBody, security, health);
    }

    private static List<String> upstreams(Node value) {
        if (value instanceof ScalarNode s) {
            return NodeWalker.isNull(s) ? List.of() : List.of(s.getValue());
        }
        if (value instanceof SequenceNode list) {
            return list.getValue().stream().filter(n -> n instanceof ScalarNode)
                    .map(n -> ((ScalarNode) n).getValue()).toList();
        }
        return List.of();
    }
}
