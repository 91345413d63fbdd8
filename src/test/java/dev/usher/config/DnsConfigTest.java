package dev.usher.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.usher.config.AcmeSettings.ChallengeType;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code acme.dns} and a site's {@code tls: {dns, wildcard}}: what each provider's settings read into. */
class DnsConfigTest {
    @TempDir
    Path dir;

    private UsherConfig parse(String yaml, Map<String, String> variables) throws ConfigException {
        return ConfigLoader.parse(yaml, "dns.yaml", new HostEnvironment("alice", "/home/alice", variables), dir);
    }

    @Test
    void rfc2136WithATsigKeygenFileAllowsWildcardsAndAnswersOnlyDns01() throws Exception {
        Files.writeString(dir.resolve("usher.key"), """
                key "usher-key" {
                	algorithm hmac-sha512;
                	secret "c2VjcmV0LXNlY3JldC1zZWNyZXQ=";
                };
                """);
        UsherConfig config = parse("""
                acme:
                  dns: {provider: rfc2136, server: "192.0.2.53:5353", key_file: usher.key, zone: Example.COM.,
                        propagation_timeout: 30s, resolvers: ["127.0.0.1:5300", "::1"], nameserver_port: 5300}
                sites:
                  "*.example.com": app:80
                  app.example.com: app:80
                """, Map.of());
        AcmeSettings acme = config.acme();
        assertThat(acme.challenges()).containsExactly(ChallengeType.DNS_01);
        DnsSettings dns = acme.dns();
        assertThat(dns.provider()).isInstanceOfSatisfying(DnsSettings.Rfc2136.class, r -> {
            assertThat(r.server()).isEqualTo(new DnsServer("192.0.2.53", 5353));
            assertThat(r.keyName()).isEqualTo("usher-key");
            assertThat(r.keyAlgorithm()).isEqualTo("hmac-sha512");
            assertThat(r.keySecret().reveal()).isEqualTo("c2VjcmV0LXNlY3JldC1zZWNyZXQ=");
        });
        assertThat(dns.zone()).isEqualTo("example.com");
        assertThat(dns.propagationTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(dns.resolvers()).containsExactly(new DnsServer("127.0.0.1", 5300), new DnsServer("::1", 53));
        assertThat(dns.nameserverPort()).isEqualTo(5300);
        assertThat(config.sites()).extracting(Site::name).containsExactly("*.example.com", "app.example.com");
        assertThat(config.toString()).as("no secret in any toString").doesNotContain("c2VjcmV0");
    }

    @Test
    void secretsComeFromTheEnvironmentOrAFileAndNeverShowInToString() throws Exception {
        Path token = Files.writeString(dir.resolve("cf.token"), "  file-token-value\n");
        UsherConfig config = parse("""
                acme:
                  challenge: [http-01, dns-01]
                  dns: {provider: cloudflare, token: "${CF_API_TOKEN}", zone_id: 023e105f4ecef8ad9ca31a8372d0c353}
                sites:
                  "*.example.com": app:80
                  own.example.org: {to: app:80, tls: {dns: {provider: cf, token_file: cf.token}}}
                """.replace("provider: cf,", "provider: cloudflare,"), Map.of("CF_API_TOKEN", "env-token-value"));
        assertThat(config.acme().challenges()).containsExactly(ChallengeType.HTTP_01, ChallengeType.DNS_01);
        DnsSettings.Cloudflare global = (DnsSettings.Cloudflare) config.acme().dns().provider();
        assertThat(global.token().reveal()).isEqualTo("env-token-value");
        assertThat(global.token().origin()).isEqualTo("the environment variable CF_API_TOKEN");
        assertThat(global.zoneId()).isEqualTo("023e105f4ecef8ad9ca31a8372d0c353");
        assertThat(global.api()).isEqualTo(DnsSettings.Cloudflare.DEFAULT_API);
        Site own = config.sites().get(1);
        DnsSettings.Cloudflare site = (DnsSettings.Cloudflare) own.tls().dns().provider();
        assertThat(site.token().reveal()).isEqualTo("file-token-value");
        assertThat(site.token().origin()).isEqualTo("the file " + token);
        assertThat(config.toString()).doesNotContain("env-token-value").doesNotContain("file-token-value");
        assertThat(own.tls().toString()).isEqualTo("acme (dns-01: cloudflare)");
    }

    @Test
    void acmeDnsReadsTheAccountFileThatRegisterAnswered() throws Exception {
        Files.writeString(dir.resolve("acme-dns.json"), """
                {"username":"c36f50e8-4632-44f0-83fe-e070fef28a10","password":"htB9mR9DYgcu9bX_afHF62erXaH2TS7bg9KW3F7Z",
                 "fulldomain":"8e5700ea-a4bf-41c7-8a77-e990661dcc6a.auth.example.org",
                 "subdomain":"8e5700ea-a4bf-41c7-8a77-e990661dcc6a","allowfrom":[]}
                """);
        UsherConfig config = parse("""
                acme: {dns: {provider: acme-dns, server: "https://auth.example.org/", account_file: acme-dns.json}}
                sites:
                  "*.example.com": app:80
                """, Map.of());
        DnsSettings.AcmeDns a = (DnsSettings.AcmeDns) config.acme().dns().provider();
        assertThat(a.server()).isEqualTo(URI.create("https://auth.example.org"));
        assertThat(a.username()).isEqualTo("c36f50e8-4632-44f0-83fe-e070fef28a10");
        assertThat(a.password().reveal()).isEqualTo("htB9mR9DYgcu9bX_afHF62erXaH2TS7bg9KW3F7Z");
        assertThat(a.subdomain()).isEqualTo("8e5700ea-a4bf-41c7-8a77-e990661dcc6a");
        assertThat(config.toString()).doesNotContain("htB9mR9D");
    }

    @Test
    void execFindsItsProgramOnPathAndKeepsItsArguments() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path hook = Files.writeString(bin.resolve("dns-hook"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwxr-xr-x"));
        UsherConfig config = parse("""
                acme: {dns: {provider: exec, command: [dns-hook, --zone, example.com], timeout: 30s}}
                sites:
                  "*.example.com": app:80
                """, Map.of("PATH", "/nonexistent:" + bin));
        DnsSettings.Exec exec = (DnsSettings.Exec) config.acme().dns().provider();
        assertThat(exec.command()).containsExactly(hook.toString(), "--zone", "example.com");
        assertThat(exec.timeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void wildcardTrueServesTheSiteWithTheParentsWildcardCertificate() throws Exception {
        UsherConfig config = parse("""
                acme: {dns: {provider: exec, command: /bin/true}}
                sites:
                  app.example.com: {to: app:80, tls: {wildcard: true}}
                  api.example.com: {to: app:80, tls: {wildcard: true}}
                  "*.example.com": app:80
                  app.dev.localhost: {to: app:80, tls: {wildcard: true}}
                  own.example.com: app:80
                """, Map.of());
        assertThat(config.sites()).extracting(s -> s.tls().certificateName(s.name()))
                .containsExactly("*.example.com", "*.example.com", "*.example.com", "*.dev.localhost",
                        "own.example.com");
        assertThat(config.sites().get(3).tls().kind()).isEqualTo(TlsPolicy.Kind.INTERNAL);
    }

    @Test
    void aSiteOfItsOwnDnsLeavesTheOthersOnHttp01() throws Exception {
        UsherConfig config = parse("""
                sites:
                  "*.lan.example.com": {to: app:80, tls: {dns: {provider: exec, command: /bin/true}}}
                  app.example.com: app:80
                """, Map.of());
        assertThat(config.acme().dns()).isNull();
        assertThat(config.acme().challenges()).containsExactly(ChallengeType.HTTP_01, ChallengeType.TLS_ALPN_01);
        assertThat(config.sites().get(0).tls().dns().provider()).isInstanceOf(DnsSettings.Exec.class);
        assertThat(config.sites().get(1).tls().dns()).isNull();
    }

    @Test
    void dnsSettingsWithoutDns01AmongTheChallengesIsAnError() {
        assertThatThrownBy(() -> parse("""
                acme: {challenge: http-01, dns: {provider: exec, command: /bin/true}}
                sites:
                  app.example.com: app:80
                """, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("dns.yaml:1:19: acme.challenge: acme.dns is set but the challenge types leave "
                        + "out dns-01");
    }

    @Test
    void theTsigSecretMustBeBase64AndTheAlgorithmOneUsherSignsWith() throws Exception {
        Files.writeString(dir.resolve("md4.key"), "key \"k\" { algorithm hmac-md4; secret \"c2VjcmV0\"; };\n");
        assertThatThrownBy(() -> parse("""
                acme: {dns: {provider: rfc2136, server: ns1.example.com, key_name: k, secret: "${TSIG}"}}
                sites:
                  app.example.com: app:80
                """, Map.of("TSIG", "not base64!"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("the TSIG secret from the environment variable TSIG is not base64");
        assertThatThrownBy(() -> parse("""
                acme: {dns: {provider: rfc2136, server: ns1.example.com, key_file: md4.key}}
                sites:
                  app.example.com: app:80
                """, Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("uses hmac-md4; Usher signs with hmac-sha256");
    }

    @Test
    void aDnsServerIsAHostWithAnOptionalPort() throws Exception {
        assertThat(DnsServer.parse("ns1.example.com")).isEqualTo(new DnsServer("ns1.example.com", 53));
        assertThat(DnsServer.parse("[2001:db8::53]:5353")).isEqualTo(new DnsServer("2001:db8::53", 5353));
        assertThat(DnsServer.parse("2001:db8::53")).isEqualTo(new DnsServer("2001:db8::53", 53));
        assertThat(DnsServer.parse("192.0.2.1:53").toString()).isEqualTo("192.0.2.1:53");
        assertThatThrownBy(() -> DnsServer.parse("udp://192.0.2.1")).isInstanceOf(BadValue.class);
        assertThat(List.of(DnsServer.parse("::1").isIpLiteral(), DnsServer.parse("a.b").isIpLiteral()))
                .containsExactly(true, false);
    }
}
