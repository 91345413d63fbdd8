package dev.usher.dns;

import dev.usher.config.DnsSettings;
import dev.usher.config.Secret;
import dev.usher.testing.AcmeDnsApiServer;
import dev.usher.testing.Bind;
import dev.usher.testing.CloudflareApiServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Cloudflare and acme-dns providers against servers started here that follow those services' documented
 * endpoints ({@link CloudflareApiServer}: zones and dns_records of API v4; {@link AcmeDnsApiServer}: acme-dns's
 * {@code /update}), including their error answers, which must reach the user in the service's own words.
 */
class HttpProvidersTest {
    static final String TOKEN = "cf-test-token-0123456789";
    static final String FULLDOMAIN = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a.auth.example";
    static final String VALUE = "x".repeat(43);
    static Bind bind;
    static CloudflareApiServer cloudflare;
    static AcmeDnsApiServer acmeDns;

    @BeforeAll
    static void start() throws Exception {
        bind = Bind.builder().zone("usher.example").zone("auth.example").start();
        cloudflare = new CloudflareApiServer(TOKEN, List.of("usher.example"), null);
        acmeDns = new AcmeDnsApiServer("c36f50e8-4632-44f0-83fe-e070fef28a10", "acme-dns-password", FULLDOMAIN,
                "auth.example", bind);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {cloudflare, acmeDns, bind}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // the next one still
            }
        }
    }

    static CloudflareProvider cloudflare(String token, String zoneId, JsonApi api) {
        return new CloudflareProvider(new DnsSettings.Cloudflare(new Secret(token, "the test"), zoneId,
                cloudflare.api()), api);
    }

    static ChallengeRecord record(String name, String value) {
        return new ChallengeRecord(name, "usher.example", value);
    }

    @Test
    void cloudflareFindsTheZoneAddsTheRecordAndRemovesItByIdOrByLookingItUp() throws Exception {
        try (JsonApi api = new JsonApi("Cloudflare")) {
            CloudflareProvider provider = cloudflare(TOKEN, null, api);
            ChallengeRecord a = record("_acme-challenge.a.usher.example", VALUE);
            ChallengeRecord b = record("_acme-challenge.a.usher.example", "y".repeat(43));
            String id = provider.present(a);
            provider.present(b);
            assertThat(id).hasSize(32);
            assertThat(cloudflare.records()).contains("_acme-challenge.a.usher.example " + VALUE,
                    "_acme-challenge.a.usher.example " + "y".repeat(43));
            assertThat(cloudflare.requests()).contains("GET /client/v4/zones?name=usher.example",
                    "POST /client/v4/zones/" + cloudflare.zoneId("usher.example") + "/dns_records");
            provider.cleanUp(a, id);
            provider.cleanUp(b, ""); // its id never learnt: found by name and value
            assertThat(cloudflare.records()).isEmpty();
            provider.cleanUp(a, id); // already gone (404 "Record does not exist."): nothing to do
        }
    }

    @Test
    void cloudflaresRefusalsAreReportedWithItsCodesAndMessages() throws Exception {
        try (JsonApi api = new JsonApi("Cloudflare")) {
            ChallengeRecord a = record("_acme-challenge.refused.usher.example", VALUE);
            assertThatThrownBy(() -> cloudflare("wrong-token", null, api).present(a)).isInstanceOf(DnsException.class)
                    .hasMessage("Cloudflare refused to find the zone usher.example: [10000] Authentication error "
                            + "(HTTP 403) (check the API token and that it may edit this zone's DNS)");
            assertThatThrownBy(() -> cloudflare(TOKEN, "0123456789abcdef0123456789abcdef", api).present(a))
                    .isInstanceOf(DnsException.class).hasMessageContaining("[7003] Could not route to /zones/"
                            + "0123456789abcdef0123456789abcdef/dns_records, perhaps your object identifier is "
                            + "invalid? (HTTP 400)");
            assertThatThrownBy(() -> cloudflare(TOKEN, null, api).present(new ChallengeRecord(
                    "_acme-challenge.x.other.example", VALUE, "other.example")))
                    .isInstanceOf(DnsException.class).hasMessageContaining("Cloudflare shows no zone named");
            CloudflareProvider provider = cloudflare(TOKEN, cloudflare.zoneId("usher.example"), api);
            String id = provider.present(a);
            assertThatThrownBy(() -> provider.present(a)).isInstanceOf(DnsException.class)
                    .hasMessageContaining("[81058] An identical record already exists. (HTTP 400)");
            cloudflare.failNextCreates(1);
            assertThatThrownBy(() -> provider.present(record("_acme-challenge.b.usher.example", VALUE)))
                    .isInstanceOf(DnsException.class)
                    .hasMessageContaining("[971] Please wait and consider throttling your request speed (HTTP 429) "
                            + "(rate limited; Usher tries again later)");
            provider.cleanUp(a, id);
            assertThat(cloudflare.records()).isEmpty();
        }
    }

    static AcmeDnsProvider acmeDns(String password, JsonApi api) {
        return new AcmeDnsProvider(new DnsSettings.AcmeDns(acmeDns.url(), "c36f50e8-4632-44f0-83fe-e070fef28a10",
                new Secret(password, "the test"), FULLDOMAIN), api);
    }

    @Test
    void acmeDnsUpdatesTheAccountsTxtRecordsKeepingTheTwoLatest() throws Exception {
        try (JsonApi api = new JsonApi("acme-dns")) {
            AcmeDnsProvider provider = acmeDns("acme-dns-password", api);
            for (char c : new char[] {'a', 'b', 'c'}) {
                provider.present(new ChallengeRecord(FULLDOMAIN, "auth.example", String.valueOf(c).repeat(43)));
            }
            assertThat(bind.dig("127.0.0.1", FULLDOMAIN, "TXT")).containsExactlyInAnyOrder(
                    "\"" + "b".repeat(43) + "\"", "\"" + "c".repeat(43) + "\"");
            assertThat(acmeDns.requests()).containsOnly("POST /update");
        }
    }

    @Test
    void acmeDnsRefusalsAndAMissingCnameAreExplained() throws Exception {
        try (JsonApi api = new JsonApi("acme-dns")) {
            ChallengeRecord record = new ChallengeRecord(FULLDOMAIN, "auth.example", VALUE);
            assertThatThrownBy(() -> acmeDns("wrong", api).present(record)).isInstanceOf(DnsException.class)
                    .hasMessageContaining("refused the update of " + FULLDOMAIN + " TXT \"xxxxxxxx…\": forbidden "
                            + "(HTTP 401) (wrong username or password");
            assertThatThrownBy(() -> acmeDns("acme-dns-password", api).present(new ChallengeRecord(FULLDOMAIN,
                    "auth.example", "too-short"))).isInstanceOf(DnsException.class)
                    .hasMessageContaining("bad_txt (HTTP 400) (acme-dns takes 43-character challenge values only)");
            assertThatThrownBy(() -> acmeDns("acme-dns-password", api).present(new ChallengeRecord(
                    "_acme-challenge.app.usher.example", "usher.example", VALUE))).isInstanceOf(DnsException.class)
                    .hasMessage("acme-dns: _acme-challenge.app.usher.example is not the account's " + FULLDOMAIN
                            + "; add the record \"_acme-challenge.app.usher.example. CNAME " + FULLDOMAIN + ".\" at "
                            + "the domain's DNS host (once; Usher follows it from then on)");
        }
    }

    @Test
    void anUnreachableApiIsNamed() {
        try (JsonApi api = new JsonApi("Cloudflare")) {
            CloudflareProvider provider = new CloudflareProvider(new DnsSettings.Cloudflare(new Secret(TOKEN, "t"),
                    "z", URI.create("http://127.0.0.1:" + dev.usher.testing.Pebble.freePort() + "/client/v4")), api);
            assertThatThrownBy(() -> provider.present(record("_acme-challenge.x.usher.example", VALUE)))
                    .isInstanceOf(DnsException.class).hasMessageContaining("could not reach the Cloudflare API at "
                            + "http://127.0.0.1:").hasMessageContaining("connection refused");
        }
    }
}
