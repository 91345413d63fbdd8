package dev.usher.config;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code access_log:} at the top (off by default, on, stdout, a file) and a site's own true/false. */
class AccessLogConfigTest {
    private static UsherConfig parse(String yaml) throws ConfigException {
        return ConfigLoader.parse("listen: {http: \":0\", https: off}\n" + yaml, "/etc/usher/usher.yaml");
    }

    private static Map<String, Boolean> logged(UsherConfig c) {
        return c.sites().stream().collect(Collectors.toMap(Site::name, Site::accessLog));
    }

    @Test
    void isOffByDefault() throws Exception {
        UsherConfig c = parse("sites:\n  a.localhost: 127.0.0.1:1\n");
        assertThat(c.accessLog()).isEqualTo(AccessLogSetting.OFF);
        assertThat(c.anyAccessLog()).isFalse();
        assertThat(logged(c)).containsEntry("a.localhost", false);
    }

    @Test
    void onAndStdoutMeanStandardOutput() throws Exception {
        for (String word : new String[] {"on", "stdout", "true", "\"-\""}) {
            assertThat(parse("access_log: " + word + "\n").accessLog()).as(word).isEqualTo(AccessLogSetting.STDOUT);
        }
        for (String word : new String[] {"off", "false", "none"}) {
            assertThat(parse("access_log: " + word + "\n").accessLog()).as(word).isEqualTo(AccessLogSetting.OFF);
        }
    }

    @Test
    void aFileIsAppendedTo() throws Exception {
        AccessLogSetting relative = parse("access_log: logs/access.log\n").accessLog();
        assertThat(relative.on()).isTrue();
        assertThat(relative.file().isAbsolute() && relative.file().endsWith(Path.of("logs/access.log"))).isTrue();
        assertThat(parse("access_log: /var/log/usher.log\n").accessLog().file())
                .isEqualTo(Path.of("/var/log/usher.log"));
    }

    @Test
    void aSiteTurnsItOffOrOnForItself() throws Exception {
        UsherConfig on = parse("""
                access_log: on
                sites:
                  a.localhost: 127.0.0.1:1
                  noisy.localhost: {to: 127.0.0.1:1, access_log: false}
                """);
        assertThat(logged(on)).containsEntry("a.localhost", true).containsEntry("noisy.localhost", false);
        UsherConfig off = parse("""
                sites:
                  a.localhost: 127.0.0.1:1
                  watched.localhost: {to: 127.0.0.1:1, access_log: true}
                """);
        assertThat(logged(off)).containsEntry("a.localhost", false).containsEntry("watched.localhost", true);
        assertThat(off.anyAccessLog()).isTrue();
    }

    @Test
    void aSiteValueMustBeTrueOrFalse() {
        assertThatThrownBy(() -> parse("sites:\n  a.localhost: {to: 127.0.0.1:1, access_log: \"/tmp/x\"}\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("true or false");
    }
}
