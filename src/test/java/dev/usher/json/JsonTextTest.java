package dev.usher.json;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class JsonTextTest {
    @Test
    void escapesQuotesBackslashesAndControlCharacters() {
        assertThat(JsonText.quote("a\"b\\c\nd\re\tf\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\re\\tf\\u0001\"");
    }

    @Test
    void writesNonAsciiAsEscapesSoTheTextStaysAscii() {
        assertThat(JsonText.quote("bücher.example\u2028")).isEqualTo("\"b\\u00fccher.example\\u2028\"");
        assertThat(JsonText.quote(null)).isEqualTo("null");
    }

    @Test
    void whatItWritesReadsBackUnchanged() throws JsonReader.BadJson {
        String text = "line 1\nline \"2\" \\ ünïcödé \u0000 \uD83D\uDE00 /";
        StringBuilder out = new StringBuilder("[");
        JsonText.quote(text, out);
        out.append(",{\"k\":").append(JsonText.quote("v")).append("}]");
        assertThat(JsonReader.parse(out.toString())).isEqualTo(List.of(text, Map.of("k", "v")));
    }
}
