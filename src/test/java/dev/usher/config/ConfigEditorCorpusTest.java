package dev.usher.config;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every edit on a corpus of awkward but valid files: after each add, change and delete the file still loads (the
 * loader of {@code usher check}), its sites are exactly the intended ones, and every line outside the edited site
 * is byte for byte as it was, in order (the edit replaced, inserted or removed one run of lines).
 */
class ConfigEditorCorpusTest {
    private static final String NEW_UPSTREAM = "127.0.0.1:8123";

    private static final List<String> CORPUS = List.of(
            // quoted keys, single and double, with a comment on the sites: line and trailing spaces
            "sites: # the sites   \n  'single.localhost': 127.0.0.1:1  \n  \"double.localhost\": 127.0.0.1:2\n"
                    + "  plain.localhost: 127.0.0.1:3\n",
            // no final newline, sites last
            "listen: {http: \"127.0.0.1:0\"}\nsites:\n  a.localhost: 127.0.0.1:1\n  b.localhost: 127.0.0.1:2",
            // CRLF, sites in the middle, comments between and after
            "listen: {http: \"127.0.0.1:0\"}\r\nsites:\r\n  # first\r\n  a.localhost: 127.0.0.1:1\r\n\r\n"
                    + "  # second\r\n  b.localhost:\r\n    to: 127.0.0.1:2\r\n    gzip: false\r\n  # end of sites\r\n"
                    + "timeouts:\r\n  connect: 5s\r\n",
            // a multi-line flow mapping as a site value, a list of upstreams, http:// and a wildcard
            "sites:\n  a.localhost: {to: 127.0.0.1:1,\n     gzip: false}\n  http://b.localhost: [127.0.0.1:2, "
                    + "127.0.0.1:3]\n  \"*.w.localhost\": 127.0.0.1:4\n# trailing comment\n",
            // a site with an anchor (no alias uses it), last
            "sites:\n  c.localhost: 127.0.0.1:3\n  b.localhost: &up 127.0.0.1:1\n",
            // deeper indentation, an IDN name (its ASCII form: the loader refuses others), a comment ending the block
            "sites:\n      xn--bcher-kva.localhost: 127.0.0.1:1\n      b.localhost: 127.0.0.1:2\n      # end\n"
                    + "data: ./data\n",
            // one site only
            "sites:\n  only.localhost: 127.0.0.1:1\n",
            // an empty sites: (null), followed by another section
            "sites:\nlimits:\n  max_body: 1MiB\n",
            "sites:   # none yet\n",
            // document markers, a comment after a key, a comment inside a site's value
            "---\nsites:\n  a.localhost:   # comment after the key\n    # the backend\n    to: 127.0.0.1:1\n"
                    + "  b.localhost: 127.0.0.1:2\n...\n",
            // a site whose value is a block list
            "sites:\n  a.localhost:\n    - 127.0.0.1:1\n    - 127.0.0.1:2\n  b.localhost: 127.0.0.1:3\n");

    @Test
    void everyEditChangesOnlyItsSiteAndLoadsAsIntended() throws Exception {
        for (String file : CORPUS) {
            Map<String, List<String>> sites = sites(file);
            for (String name : sites.keySet()) {
                String deleted = ConfigEditor.delete(file, name);
                Map<String, List<String>> expected = new LinkedHashMap<>(sites);
                expected.remove(name);
                assertThat(sites(deleted)).as("delete %s from:%n%s", name, file).isEqualTo(expected);
                String yaml = ConfigEditor.site(file, name).orElseThrow().yaml();
                assertOneRunChanged(file, deleted, yaml, "delete " + name);

                String changed = ConfigEditor.put(file, name, form(name, NEW_UPSTREAM));
                expected = new LinkedHashMap<>(sites);
                expected.put(name, List.of(NEW_UPSTREAM));
                assertThat(sites(changed)).as("change %s in:%n%s", name, file).isEqualTo(expected);
                assertOneRunChanged(file, changed, yaml, "change " + name);

                for (String other : sites.keySet()) {
                    if (!other.equals(name)) {
                        assertThatThrownBy(() -> ConfigEditor.put(file, name, form(other, NEW_UPSTREAM)))
                                .as("rename %s onto %s", name, other).isInstanceOf(ConfigEditor.EditException.class)
                                .extracting(e -> ((ConfigEditor.EditException) e).kind())
                                .isEqualTo(ConfigEditor.EditException.Kind.EXISTS);
                    }
                }
            }
            String added = ConfigEditor.put(file, null, form("new.localhost", NEW_UPSTREAM));
            Map<String, List<String>> expected = new LinkedHashMap<>(sites);
            expected.put("new.localhost", List.of(NEW_UPSTREAM));
            assertThat(sites(added)).as("add to:%n%s", file).isEqualTo(expected);
            assertOneRunChanged(file, added, "", "add");
        }
    }

    /**
     * A site whose anchor another site uses cannot be removed or rewritten on its own: the result does not load,
     * so the API refuses it (422) and the file stays as it was; the alias's own site edits as any other.
     */
    @Test
    void anAnchorOtherSitesUseIsNeverSilentlyLost() throws Exception {
        String file = "sites:\n  a.localhost: &up 127.0.0.1:1\n  b.localhost: *up\n  c.localhost: 127.0.0.1:3\n";
        assertThat(sites(file)).containsEntry("b.localhost", List.of("127.0.0.1:1"));
        for (String edited : List.of(ConfigEditor.delete(file, "a.localhost"),
                ConfigEditor.put(file, "a.localhost", form("a.localhost", NEW_UPSTREAM)))) {
            assertThatThrownBy(() -> sites(edited)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("alias");
        }
        String changed = ConfigEditor.put(file, "b.localhost", form("b.localhost", NEW_UPSTREAM));
        assertThat(sites(changed)).containsExactly(Map.entry("a.localhost", List.of("127.0.0.1:1")),
                Map.entry("b.localhost", List.of(NEW_UPSTREAM)), Map.entry("c.localhost", List.of("127.0.0.1:3")));
    }

    private static SiteForm form(String name, String upstream) {
        return new SiteForm(name, List.of(upstream), null, null, null, null, null, null, null, null);
    }

    /** The sites as the loader sees them: name → upstreams. */
    private static Map<String, List<String>> sites(String text) throws ConfigException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Site s : ConfigLoader.parse(text, "corpus.yaml").sites()) {
            out.put(s.name(), s.upstreams().stream().map(UpstreamAddress::authority).toList());
        }
        return out;
    }

    /**
     * The lines before and after one run are byte for byte the same (line endings included); a file that lacked
     * its final newline may gain one on its last line.
     */
    private static void assertOneRunChanged(String before, String after, String siteYaml, String what) {
        List<String> a = lines(before);
        List<String> b = lines(after);
        int head = 0;
        while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
            head++;
        }
        int tail = 0;
        while (tail < a.size() - head && tail < b.size() - head
                && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
            tail++;
        }
        List<String> removed = a.subList(head, a.size() - tail);
        boolean lastLineGainsNewline = !before.endsWith("\n") && tail == 0 && !removed.isEmpty()
                && removed.get(removed.size() - 1).equals(a.get(a.size() - 1));
        for (int i = 0; i < removed.size(); i++) {
            String line = removed.get(i).replaceAll("\r?\n$", "");
            boolean allowed = line.isBlank() || line.strip().startsWith("#") || siteYaml.contains(line)
                    || lastLineGainsNewline && i == removed.size() - 1;
            assertThat(allowed).as("%s removed or changed the unrelated line [%s] of:%n%s", what, line, before)
                    .isTrue();
        }
        String newline = before.contains("\r\n") ? "\r\n" : "\n";
        for (String line : b.subList(head, b.size() - tail)) {
            assertThat(line.endsWith(newline) || line.equals(b.get(b.size() - 1)))
                    .as("%s: new line %s ends as the file's lines do", what, line).isTrue();
        }
    }

    /** Lines with their endings. */
    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                out.add(text.substring(start, i + 1));
                start = i + 1;
            }
        }
        if (start < text.length()) {
            out.add(text.substring(start));
        }
        return out;
    }
}
