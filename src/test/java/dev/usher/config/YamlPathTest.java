package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class YamlPathTest {
    @Test
    void quotesKeysThatAreNotPlainWords() {
        YamlPath path = YamlPath.ROOT.key("sites").key("app.example.com").key("to").index(1);
        assertThat(path.text()).isEqualTo("sites.\"app.example.com\".to[1]");
        assertThat(YamlPath.ROOT.key("max_body").text()).isEqualTo("max_body");
        assertThat(YamlPath.ROOT.key("say \"hi\"\\\n").text()).isEqualTo("\"say \\\"hi\\\"\\\\\\n\"");
        assertThat(YamlPath.ROOT.key("").text()).isEqualTo("\"\"");
        assertThat(YamlPath.ROOT.text()).isEmpty();
    }
}
