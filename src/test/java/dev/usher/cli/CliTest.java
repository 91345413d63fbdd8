package dev.usher.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line: check, version, help and the errors for bad use. */
class CliTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return runWithInput("", args);
    }

    private int runWithInput(String input, String... args) {
        return new Cli(new java.io.ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .execute(args);
    }

    @Test
    void checkAcceptsAValidFile() throws Exception {
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, "sites:\n  app1.example.com: app1:80\n  app2.example.com: app2:80\n");
        assertThat(run("check", "--config", file.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("OK, 2 site(s)");
    }

    @Test
    void checkWarnsOfBackendsWhoseCertificateIsNotChecked() throws Exception {
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, """
                sites:
                  pve.example.com: {to: https://10.0.0.5:8006, upstream_tls: {insecure_skip_verify: true}}
                  app.example.com:
                    to: app:80
                    paths:
                      /nas/: {to: https://10.0.0.6:5001, upstream_tls: {insecure_skip_verify: true}}
                      /kube/: https://10.0.0.7:443
                """);
        assertThat(run("check", "--config", file.toString())).isZero();
        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("OK, 2 site(s)")
                .contains("warning: pve.example.com: https://10.0.0.5:8006: upstream_tls.insecure_skip_verify is on")
                .contains("warning: app.example.com /nas/: https://10.0.0.6:5001: upstream_tls.insecure_skip_verify")
                .doesNotContain("10.0.0.7");
    }

    @Test
    void checkListsEveryErrorWithItsPositionAndExitsOne() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "sites:\n  app1.example.com: app1:99999\n  app2.example.com: {to: app2:80, max_bdy: 1MiB}\n");
        assertThat(run("check", "--config", file.toString())).isEqualTo(1);
        String errors = err.toString(StandardCharsets.UTF_8);
        assertThat(errors).contains(file + ":2:21:").contains("65535");
        assertThat(errors).contains(file + ":3:").contains("did you mean \"max_body\"");
        assertThat(errors).contains("2 error(s)");
    }

    @Test
    void checkSaysWhereADnsSecretFileIsMissingOrUnreadable() throws Exception {
        Path file = dir.resolve("dns.yaml");
        Path unreadable = Files.writeString(dir.resolve("secret.dir.token"), "x");
        Files.delete(unreadable);
        Files.createDirectory(unreadable); // a directory: unreadable as a token file, even for root
        Files.writeString(file, """
                acme:
                  dns: {provider: cloudflare, token_file: cf.token}
                sites:
                  "*.example.com": app:80
                  own.example.org: {to: app:80, tls: {dns: {provider: cloudflare, token_file: secret.dir.token}}}
                """);
        assertThat(run("check", "--config", file.toString())).isEqualTo(1);
        String errors = err.toString(StandardCharsets.UTF_8);
        assertThat(errors).contains(file + ":2:43: acme.dns.token_file: cannot read " + dir.resolve("cf.token")
                + " (the Cloudflare API token): no such file");
        assertThat(errors).contains(file + ":5:79: sites.\"own.example.org\".tls.dns.token_file: cannot read "
                + unreadable + " (the Cloudflare API token): it is a directory");
        Files.writeString(dir.resolve("cf.token"), "token\n");
        Files.delete(unreadable);
        Files.writeString(unreadable, "other-token\n");
        out.reset();
        assertThat(run("check", "--config", file.toString())).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("OK, 2 site(s)").doesNotContain("token");
    }

    @Test
    void checkValidatesStreamsWithPositions() throws Exception {
        Path file = dir.resolve("streams.yaml");
        Files.writeString(file, "listen: {http: \":80\", https: \":443\"}\nsites:\n  app.example.com: app:80\n"
                + "streams:\n  \":2222\": gitea:22\n  \":80\": other:80\n  \":27015/udp\": {to: game:27015, idel: 1m}\n");
        assertThat(run("check", "--config", file.toString())).isEqualTo(1);
        String errors = err.toString(StandardCharsets.UTF_8);
        assertThat(errors).contains(file + ":6:3:").contains("already Usher's listen.http");
        assertThat(errors).contains(file + ":7:34:").contains("unknown key \"idel\"");
        assertThat(errors).contains("2 error(s)");
    }

    @Test
    void trustPrintsTheLocalRootAndHowToTrustIt() throws Exception {
        Path file = dir.resolve("usher.yaml");
        Files.writeString(file, "data: state\nsites:\n  app.localhost: 127.0.0.1:3000\n");
        assertThat(run("trust", "--config", file.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no local CA").contains("Start Usher");
        assertThat(dir.resolve("state")).doesNotExist();
        dev.usher.cert.LocalCa.open(new dev.usher.cert.CertStore(dir.resolve("state"))); // as a running Usher does
        assertThat(run("trust", "--config", file.toString())).isZero();
        Path root = dir.resolve("state/ca/root.pem").toAbsolutePath();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains(root.toString()).contains("update-ca-certificates")
                .contains("certutil").contains("curl --cacert " + root);
    }

    @Test
    void renewWithoutARunningUsherSaysNoneAnswers() throws Exception {
        Path file = dir.resolve("usher.yaml");
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Files.writeString(file, "admin: \"127.0.0.1:" + port + "\"\nsites:\n  app.example.com: 127.0.0.1:3000\n");
        assertThat(run("renew", "app.example.com", "--config", file.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no Usher answers at 127.0.0.1:" + port);
        assertThat(run("renew", "--config", file.toString())).isEqualTo(2);
    }

    @Test
    void checkOfAMissingFileSaysSo() {
        assertThat(run("check", "--config", dir.resolve("nope.yaml").toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no such file");
    }

    @Test
    void runRefusesToStartOnAnInvalidConfig() throws Exception {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "listen: {http: \"127.0.0.1:0\", https: off}\nsites:\n  bad name: x:1\n");
        assertThat(run("run", "--config", file.toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not started");
    }

    @Test
    void versionAndHelp() {
        assertThat(run("version")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usher ");
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("usher run").contains("usher check");
    }

    @Test
    void hashPasswordPrintsABcryptHashThatVerifies() {
        assertThat(runWithInput("s3cret passphrase\n", "hash-password", "--password-stdin")).isZero();
        String hash = out.toString(StandardCharsets.UTF_8).trim();
        assertThat(hash).startsWith("$2y$");
        assertThat(org.bouncycastle.crypto.generators.OpenBSDBCrypt.checkPassword(hash,
                "s3cret passphrase".toCharArray())).isTrue();
        assertThat(org.bouncycastle.crypto.generators.OpenBSDBCrypt.checkPassword(hash, "wrong".toCharArray()))
                .isFalse();
    }

    @Test
    void unknownCommandIsAnError() {
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown command");
    }

    @Test
    void theBuiltInDemoConfigIsValid() throws Exception {
        assertThat(dev.usher.config.ConfigLoader.parse(RunCommand.demoConfig(9999), "demo").sites()).hasSize(3);
    }
}
