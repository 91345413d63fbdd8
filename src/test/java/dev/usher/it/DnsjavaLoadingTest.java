package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.Pebble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * dnsjava earns its memory only where DNS-01 is configured: a JVM of its own (class loading logged) orders a
 * certificate over HTTP-01 from a real Pebble, through the same AcmeIssuer and ChallengeRound a DNS-01 order uses,
 * and neither dnsjava nor Usher's dns package is ever loaded.
 */
class DnsjavaLoadingTest {
    @TempDir
    Path work;

    @Test
    void anHttp01OrderLoadsNeitherDnsjavaNorTheDnsPackage() throws Exception {
        Path classes = work.resolve("classes.log");
        Path output = work.resolve("child.log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + classes, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), Child.class.getName(), work.resolve("data").toString())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the child finished").isTrue();
        } finally {
            child.destroyForcibly();
        }
        assertThat(child.exitValue()).as(Files.readString(output)).isZero();
        String loaded = Files.readString(classes);
        assertThat(loaded).as("the order went through the ACME path")
                .contains("dev.usher.cert.AcmeIssuer ").contains("dev.usher.cert.ChallengeRound ");
        // The one exception: on this class path dnsjava's jar registers a name-resolver service, which the JDK
        // loads (and dnsjava leaves disabled); the shipped jar leaves that service file out (pom.xml, shade).
        assertThat(loaded.replace("org.xbill.DNS.spi.DnsjavaInetAddressResolverProvider ", ""))
                .doesNotContain("org.xbill.DNS").doesNotContain("dev.usher.dns.");
    }

    /** The child: Pebble, an Usher with one ACME site over HTTP-01, wait for its certificate, stop. */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            int http = Pebble.freePort();
            int https = Pebble.freePort();
            try (Pebble pebble = Pebble.start(http, https);
                 Usher usher = Usher.start(ConfigLoader.parse("""
                         listen: {http: "127.0.0.1:%d", https: "127.0.0.1:%d"}
                         admin: off
                         data: %s
                         acme: {ca: "%s", trust: "%s", challenge: http-01}
                         sites:
                           app.example.com: 127.0.0.1:9
                         """.formatted(http, https, args[0], pebble.directory(), pebble.trustPem()), "child.yaml"),
                         1, new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1))) {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (usher.certificates().certificateFor("app.example.com") == null) {
                    if (System.nanoTime() > deadline) {
                        System.err.println("no certificate: " + usher.certificates().status());
                        System.exit(2);
                    }
                    Thread.sleep(50);
                }
                System.out.println("issued: " + List.of(usher.certificates().status()));
            }
            System.exit(0);
        }
    }
}
