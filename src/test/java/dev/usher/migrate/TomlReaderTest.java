package dev.usher.migrate;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The TOML reader: the examples of the TOML 1.0 specification it must read, and what it must refuse. */
class TomlReaderTest {
    @Test
    void readsTablesArraysOfTablesDottedAndQuotedKeysAndEveryValueKind() throws Exception {
        Map<String, Object> doc = TomlReader.parse("""
                # a comment
                title = "TOML \\"Example\\" \\u00e9\\tend"
                literal = 'C:\\Users\\nodejs'
                multi = \"\"\"
                Roses are red
                Violets are \\
                   blue\"\"\"
                raw = '''
                first line
                  \\n stays'''
                ints = [ +99, -17, 1_000, 0xDEAD_BEEF, 0o755, 0b1101 ]
                floats = [ 3.1415, -0.01, 5e+22, 6.626e-34, inf, -inf ]
                flags = [true, false,]  # a trailing comma is fine
                nested = [ [1, 2], ["a", 'b'] ]
                site."google.com" = true
                "quoted key" = 1
                point = { x = 1, y = 2, z.deep = "yes" }

                [servers.alpha]
                ip = "10.0.0.1"

                [[products]]
                name = "Hammer"

                [[products]]
                name = "Nail"
                [products.details]
                size = 3
                """);
        assertThat(doc.get("title")).isEqualTo("TOML \"Example\" é\tend");
        assertThat(doc.get("literal")).isEqualTo("C:\\Users\\nodejs");
        assertThat(doc.get("multi")).isEqualTo("Roses are red\nViolets are blue");
        assertThat(doc.get("raw")).isEqualTo("first line\n  \\n stays");
        assertThat(doc.get("ints")).isEqualTo(List.of(99L, -17L, 1000L, 0xDEADBEEFL, 0755L, 13L));
        assertThat(doc.get("floats")).isEqualTo(List.of(3.1415, -0.01, 5e22, 6.626e-34, Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY));
        assertThat(doc.get("flags")).isEqualTo(List.of(true, false));
        assertThat(doc.get("nested")).isEqualTo(List.of(List.of(1L, 2L), List.of("a", "b")));
        assertThat(doc.get("site")).isEqualTo(Map.of("google.com", true));
        assertThat(doc.get("quoted key")).isEqualTo(1L);
        assertThat(doc.get("point")).isEqualTo(Map.of("x", 1L, "y", 2L, "z", Map.of("deep", "yes")));
        assertThat(doc.get("servers")).isEqualTo(Map.of("alpha", Map.of("ip", "10.0.0.1")));
        assertThat(doc.get("products")).isEqualTo(List.of(Map.of("name", "Hammer"),
                Map.of("name", "Nail", "details", Map.of("size", 3L))));
    }

    @Test
    void refusesWhatTheSpecificationRefusesWithTheLine() {
        assertThatThrownBy(() -> TomlReader.parse("a = 1\na = 2\n")).hasMessageContaining("line 2")
                .hasMessageContaining("defined twice");
        assertThatThrownBy(() -> TomlReader.parse("[t]\nx = 1\n[t]\ny = 2\n")).hasMessageContaining("line 3")
                .hasMessageContaining("defined twice");
        assertThatThrownBy(() -> TomlReader.parse("a = { x = 1 }\n[a]\n")).hasMessageContaining("line 2");
        assertThatThrownBy(() -> TomlReader.parse("a = bare\n")).hasMessageContaining("a string needs quotes");
        assertThatThrownBy(() -> TomlReader.parse("a = \"open\n")).hasMessageContaining("no closing");
        assertThatThrownBy(() -> TomlReader.parse("a = 1 b = 2\n")).hasMessageContaining("end of the line");
        assertThatThrownBy(() -> TomlReader.parse("d = 1979-05-27\n")).hasMessageContaining("dates and times");
        assertThatThrownBy(() -> TomlReader.parse("a = \"\\q\"\n")).hasMessageContaining("not an escape");
        assertThatThrownBy(() -> TomlReader.parse("a = 1__0\n")).hasMessageContaining("underscore");
    }
}
