package dev.usher.config;

import dev.usher.config.ConfigEditor.EditException;
import dev.usher.config.ConfigEditor.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.common.FlowStyle;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.schema.CoreSchema;

/**
 * The text of {@code usher.yaml} cut into lines, with where {@code sites:} and each site stand in it. The text is
 * composed (as the loader does) only to learn, from node positions, which lines each site occupies: from its key's
 * line to the last line of its value, not counting blank or comment lines after it (those stay where they are, they
 * usually introduce the next site). {@code indent} and {@code step} are how the sibling sites and their options are
 * indented, for new lines. A {@code sites:} written in flow style is refused: it cannot be edited line by line.
 *
 * @param bom          a byte order mark the text started with, or ""
 * @param lines        the lines after it, each with its line ending
 * @param newline      the file's line ending (LF or CRLF)
 * @param entries      the sites, in file order
 * @param sitesKeyLine 0-based line of {@code sites:}, or -1
 * @param sitesPresent the file has a {@code sites:} key
 * @param indent       the column of the site keys
 * @param step         how much deeper a site's options are indented
 */
record SitesLayout(String bom, List<String> lines, String newline, List<Entry> entries, int sitesKeyLine,
                   boolean sitesPresent, int indent, int step) {

    /**
     * The layout of {@code whole}.
     *
     * @throws EditException when the text is not YAML or {@code sites:} is not a block mapping
     */
    static SitesLayout read(String whole) throws EditException {
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
            return new SitesLayout(bom, lines, newline, List.of(), -1, false, 2, 2);
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
        return new SitesLayout(bom, lines, newline, List.of(), -1, false, 2, 2);
    }

    private static SitesLayout sitesLayout(String bom, List<String> lines, String newline, ScalarNode sitesKey,
                                           Node sites) throws EditException {
        int sitesLine = line(sitesKey.getStartMark());
        if (NodeWalker.isNull(sites)) {
            return new SitesLayout(bom, lines, newline, List.of(), sitesLine, true, 2, 2);
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
            boolean editable = SiteFormReader.editable(value) && SiteFormReader.writtenWithin(value, first, last);
            entries.add(new Entry(name, key.getValue(), SiteFormReader.kind(value), editable,
                    SiteFormReader.form(name, key.getValue(), value), String.join("", lines.subList(first, last + 1)),
                    first, last, column));
        }
        return new SitesLayout(bom, lines, newline, List.copyOf(entries), sitesLine, true, indent < 0 ? 2 : indent,
                step < 0 ? 2 : step);
    }

    /** The site named {@code name} (any case, with or without {@code http://}), if there is one. */
    Optional<Entry> find(String name) {
        String wanted = normalise(name);
        return entries.stream().filter(e -> e.name().equals(wanted)).findFirst();
    }

    private static String normalise(String raw) {
        try {
            return SiteNames.parse(raw).name();
        } catch (BadValue e) {
            return raw.strip().toLowerCase(Locale.ROOT);
        }
    }

    /** The 0-based last line a node reaches: an end mark at column 0 is the start of the next line. */
    private static int endLine(Optional<Mark> end, List<String> lines) {
        if (end.isEmpty()) {
            return lines.size() - 1;
        }
        int line = end.get().getLine() - (end.get().getColumn() == 0 ? 1 : 0);
        return Math.max(0, Math.min(line, lines.size() - 1));
    }

    /** The 0-based line of {@code mark} (0 when unknown). */
    static int line(Optional<Mark> mark) {
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
}
