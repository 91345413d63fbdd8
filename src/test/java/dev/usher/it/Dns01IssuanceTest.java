package dev.usher.it;

import dev.usher.Usher;
import dev.usher.cert.CertifiedKey;
import dev.usher.cert.Retry;
import dev.usher.config.ConfigLoader;
import dev.usher.testing.AcmeDnsApiServer;
import dev.usher.testing.Bind;
import dev.usher.testing.CloudflareApiServer;
import dev.usher.testing.Command;
import dev.usher.testing.Pebble;
import dev.usher.testing.Servers;
import dev.usher.testing.TlsProbe;
import dev.usher.whoami.Whoami;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Certificates over DNS-01 from a real Pebble, which validates through a real BIND resolver that asks the zone's
 * secondary on {@code [::1]}, and that secondary transfers every change three seconds after the primary got it. So an
 * order succeeds only if Usher waited until every authoritative server had the record before telling the CA. Each provider issues here:
 * RFC 2136 (wildcards, a plain name, a CNAME-delegated name, a shared {@code tls: {wildcard: true}} certificate,
 * a forced renewal), an exec hook script calling {@code nsupdate} set in the site's own {@code tls.dns}, Cloudflare and acme-dns through servers started in the test that
 * follow those services' documented APIs ({@link CloudflareApiServer}, {@link AcmeDnsApiServer}) and publish into
 * the same BIND. Records are gone afterwards on both servers (dig), also after a failed attempt and when Usher
 * stops mid-order; a restart serves the stored wildcard certificate without a new order.
 */
class Dns01IssuanceTest {
    @RegisterExtension
    static final Servers servers = new Servers();

    static final Duration LATE = Duration.ofSeconds(3);
    static final String ACME_DNS_DOMAIN = "d420c923-bbd7-4056-ab64-c3ca54c9b3cf.auth.example";

    @TempDir
    static Path work;
    static Bind bind;
    static Pebble pebble;
    static int httpsPort;
    static Whoami backend;
    static Path pebbleRoots;
    final LogLines log = new LogLines();

    @BeforeAll
    static void start() throws Exception {
        bind = servers.track(Bind.builder()
                .zone("usher.example",
                        "_acme-challenge.delegated IN CNAME delegated.challenges.example.",
                        "_acme-challenge.acmedns IN CNAME " + ACME_DNS_DOMAIN + ".")
                .zone("challenges.example")
                .zone("auth.example")
                .secondary(LATE)
                .resolver()
                .start());
        pebble = servers.track(Pebble.builder().dnsServer(bind.resolver()).start());
        httpsPort = Pebble.freePort();
        backend = servers.backend("dns01-backend");
        pebbleRoots = pebble.writeIssuingRoots(work.resolve("pebble-roots.pem"));
    }

    @BeforeEach
    void captureLogs() {
        log.start();
    }

    @AfterEach
    void stopCapturing() {
        log.stop();
    }

    /** The dns: settings every provider here shares: BIND as resolver, and the port its servers answer on. */
    static String common() {
        return "resolvers: [\"" + bind.primary() + "\"], nameserver_port: " + bind.port() + ", propagation_timeout: 30s";
    }

    static String rfc2136() {
        return "{provider: rfc2136, server: \"" + bind.primary() + "\", key_file: \"" + bind.keyFile() + "\", "
                + common() + "}";
    }

    static String config(Path data, String dns, String... sites) {
        StringBuilder yaml = new StringBuilder("""
                listen: {http: "127.0.0.1:0", https: "127.0.0.1:%d"}
                admin: off
                data: %s
                acme: {ca: "%s", trust: "%s", dns: %s}
                sites:
                """.formatted(httpsPort, data, pebble.directory(), pebble.trustPem(), dns));
        for (String site : sites) {
            yaml.append("  ").append(site.contains(":") ? site : "\"" + site + "\": 127.0.0.1:" + backend.port())
                    .append('\n');
        }
        return yaml.toString();
    }

    static Usher start(String yaml) throws Exception {
        return Usher.start(ConfigLoader.parse(yaml, "dns01.yaml"), 2,
                new Retry(Duration.ofMillis(300), Duration.ofSeconds(2)), Duration.ofSeconds(1));
    }

    static CertifiedKey awaitCertificate(Usher usher, String name) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            CertifiedKey cert = usher.certificates().certificateFor(name);
            if (cert != null) {
                return cert;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no certificate for " + name + " within 90 s; status: "
                + usher.certificates().status() + "\nPebble says:\n" + pebble.log());
    }

    static List<String> sans(CertifiedKey cert) throws Exception {
        Collection<List<?>> names = cert.leaf().getSubjectAlternativeNames();
        List<String> result = new ArrayList<>();
        names.forEach(n -> result.add(String.valueOf(n.get(1))));
        return result;
    }

    static Command curl(String name) {
        return Command.run(30, List.of("curl", "-sS", "--max-time", "20", "--cacert", pebbleRoots.toString(),
                "--resolve", name + ":" + httpsPort + ":127.0.0.1", "https://" + name + ":" + httpsPort + "/dns01"));
    }

    /** No TXT record left at {@code name}: on the primary now, on the late secondary once it caught up. */
    static void assertNoRecords(String zone, String... names) {
        for (String name : names) {
            assertThat(bind.dig("127.0.0.1", name, "TXT")).as("primary: " + name).isEmpty();
        }
        bind.awaitSecondary(zone, Duration.ofSeconds(15));
        for (String name : names) {
            assertThat(bind.dig("::1", name, "TXT")).as("secondary: " + name).isEmpty();
        }
    }

    @Test
    void rfc2136IssuesAWildcardAndAPlainNameThenARestartKeepsTheWildcardWithoutANewOrder() throws Exception {
        Path data = work.resolve("rfc2136");
        String yaml = config(data, rfc2136(), "*.wild.usher.example", "plain.usher.example");
        int orders = pebble.orderCount();
        String wildcard;
        try (Usher usher = start(yaml)) {
            CertifiedKey wild = awaitCertificate(usher, "app.wild.usher.example");
            CertifiedKey plain = awaitCertificate(usher, "plain.usher.example");
            wildcard = wild.sha256();
            assertThat(sans(wild)).containsExactlyInAnyOrder("*.wild.usher.example", "wild.usher.example");
            assertThat(sans(plain)).containsExactly("plain.usher.example");
            assertThat(pebble.orderCount()).isEqualTo(orders + 2);
            assertThat(TlsProbe.leafSha256(httpsPort, "other.wild.usher.example")).isEqualTo(wildcard);
            Command c = curl("app.wild.usher.example");
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(c.output()).contains("dns01-backend").contains("GET /dns01");
            assertThat(log.lines()).as("the late secondary was waited for")
                    .anyMatch(l -> l.contains("waiting for _acme-challenge.") && l.contains("on ns2.usher.example"))
                    .anyMatch(l -> l.contains("answered by every authoritative server ([ns1.usher.example, "
                            + "ns2.usher.example])"));
        }
        assertNoRecords("usher.example", "_acme-challenge.wild.usher.example", "_acme-challenge.plain.usher.example");
        try (Usher usher = start(yaml)) {
            CertifiedKey again = usher.certificates().certificateFor("app.wild.usher.example");
            assertThat(again).as("served from disk as soon as start returns").isNotNull();
            assertThat(again.sha256()).isEqualTo(wildcard);
            assertThat(TlsProbe.leafSha256(httpsPort, "x.wild.usher.example")).isEqualTo(wildcard);
            Thread.sleep(1000);
            assertThat(pebble.orderCount()).as("no new order after the restart").isEqualTo(orders + 2);
            CertifiedKey renewed = usher.certificates().renew("*.wild.usher.example").get(90, TimeUnit.SECONDS);
            assertThat(renewed.sha256()).as("renewed over DNS-01 as it was ordered").isNotEqualTo(wildcard);
            assertThat(pebble.orderCount()).isEqualTo(orders + 3);
            assertThat(TlsProbe.leafSha256(httpsPort, "y.wild.usher.example")).isEqualTo(renewed.sha256());
        }
        assertNoRecords("usher.example", "_acme-challenge.wild.usher.example");
    }

    @Test
    void aCnameDelegatedChallengeNameIsFollowedToItsZone() throws Exception {
        try (Usher usher = start(config(work.resolve("cname"), rfc2136(), "delegated.usher.example"))) {
            awaitCertificate(usher, "delegated.usher.example");
            assertThat(log.lines()).anyMatch(l -> l.contains("added delegated.challenges.example TXT")
                    && l.contains("in the zone challenges.example"));
        }
        assertNoRecords("challenges.example", "delegated.challenges.example");
    }

    @Test
    void sitesWithWildcardTrueShareOneOrder() throws Exception {
        int orders = pebble.orderCount();
        try (Usher usher = start(config(work.resolve("shared"), rfc2136(),
                "app1.shared.usher.example: {to: \"127.0.0.1:" + backend.port() + "\", tls: {wildcard: true}}",
                "app2.shared.usher.example: {to: \"127.0.0.1:" + backend.port() + "\", tls: {wildcard: true}}"))) {
            CertifiedKey one = awaitCertificate(usher, "app1.shared.usher.example");
            assertThat(usher.certificates().certificateFor("app2.shared.usher.example")).isSameAs(one);
            assertThat(sans(one)).containsExactlyInAnyOrder("*.shared.usher.example", "shared.usher.example");
            assertThat(pebble.orderCount()).isEqualTo(orders + 1);
            Command c = curl("app2.shared.usher.example");
            assertThat(c.exitCode()).as(c.output()).isZero();
            assertThat(usher.certificates().statusBySite()).containsKeys("app1.shared.usher.example",
                    "app2.shared.usher.example");
        }
    }

    @Test
    void aSitesOwnTlsDnsAnExecHookScriptCallingNsupdateIssuesAWildcard() throws Exception {
        Path hook = bind.writeNsupdateHook(work.resolve("dns-hook.sh"), work.resolve("hook.log"));
        String site = "\"*.hook.usher.example\": {to: \"127.0.0.1:" + backend.port() + "\", tls: {dns: "
                + "{provider: exec, command: \"" + hook + "\", " + common() + "}}}";
        try (Usher usher = start(config(work.resolve("exec"), rfc2136(), site))) { // the site's own, not acme.dns
            CertifiedKey cert = awaitCertificate(usher, "a.hook.usher.example");
            assertThat(sans(cert)).containsExactlyInAnyOrder("*.hook.usher.example", "hook.usher.example");
        }
        assertThat(Files.readAllLines(work.resolve("hook.log"))).containsExactlyInAnyOrder(
                "present _acme-challenge.hook.usher.example.", "present _acme-challenge.hook.usher.example.",
                "cleanup _acme-challenge.hook.usher.example.", "cleanup _acme-challenge.hook.usher.example.");
        assertNoRecords("usher.example", "_acme-challenge.hook.usher.example");
    }

    @Test
    void cloudflareIssuesAfterARefusalIsRetriedAndTheHalfPresentedRecordRemoved() throws Exception {
        Path token = Files.writeString(work.resolve("cf.token"), "cf-token-for-the-test\n");
        try (CloudflareApiServer cloudflare = new CloudflareApiServer("cf-token-for-the-test",
                List.of("usher.example"), bind)) {
            cloudflare.failNextCreates(1); // one of the order's two records: the other is added, then must go
            String dns = "{provider: cloudflare, token_file: \"" + token + "\", api: \"" + cloudflare.api() + "\", "
                    + common() + "}";
            try (Usher usher = start(config(work.resolve("cloudflare"), dns, "*.cf.usher.example"))) {
                awaitCertificate(usher, "www.cf.usher.example");
                assertThat(log.lines()).anyMatch(l -> l.contains("could not get a certificate (attempt 1)")
                        && l.contains("Cloudflare refused to add _acme-challenge.cf.usher.example TXT")
                        && l.contains("[971] Please wait and consider throttling your request speed (HTTP 429)"));
                assertThat(cloudflare.records()).as("the records of both attempts removed").isEmpty();
                assertThat(cloudflare.requests()).filteredOn(r -> r.startsWith("DELETE ")).hasSize(3);
            }
        }
        assertNoRecords("usher.example", "_acme-challenge.cf.usher.example");
    }

    @Test
    void acmeDnsIssuesAWildcardThroughTheCnameToItsDomain() throws Exception {
        try (AcmeDnsApiServer acmeDns = new AcmeDnsApiServer("eabcdb41-d89f-4580-826f-3e62e9755ef2",
                "pbAXVjlIOE01xbut7YnAbkhMQIkcwoHO0ek2j4Q0", ACME_DNS_DOMAIN, "auth.example", bind)) {
            Path account = Files.writeString(work.resolve("acme-dns.json"), """
                    {"username":"eabcdb41-d89f-4580-826f-3e62e9755ef2","password":"pbAXVjlIOE01xbut7YnAbkhMQIkcwoHO0ek2j4Q0",
                     "fulldomain":"%s","subdomain":"d420c923-bbd7-4056-ab64-c3ca54c9b3cf","allowfrom":[]}
                    """.formatted(ACME_DNS_DOMAIN));
            String dns = "{provider: acme-dns, server: \"" + acmeDns.url() + "\", account_file: \"" + account + "\", "
                    + common() + "}";
            try (Usher usher = start(config(work.resolve("acme-dns"), dns, "*.acmedns.usher.example"))) {
                CertifiedKey cert = awaitCertificate(usher, "x.acmedns.usher.example");
                assertThat(sans(cert)).containsExactlyInAnyOrder("*.acmedns.usher.example", "acmedns.usher.example");
                assertThat(acmeDns.requests()).containsExactly("POST /update", "POST /update");
            }
        }
    }

    @Test
    void stoppingDuringThePropagationWaitRemovesTheRecords() throws Exception {
        Usher usher = start(config(work.resolve("stopping"), rfc2136(), "stop.usher.example"));
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (bind.dig("127.0.0.1", "_acme-challenge.stop.usher.example", "TXT").isEmpty()) {
                assertThat(System.nanoTime()).as("the record appears on the primary").isLessThan(deadline);
                Thread.sleep(20);
            }
        } finally {
            usher.close(); // the late secondary has not got it: Usher is still waiting
        }
        assertThat(bind.dig("127.0.0.1", "_acme-challenge.stop.usher.example", "TXT")).isEmpty();
        assertThat(usher.certificates().certificateFor("stop.usher.example")).isNull();
    }

    /** Usher's log lines (java.util.logging, where System.Logger writes) while a test runs. */
    static final class LogLines extends Handler {
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final Logger root = Logger.getLogger("dev.usher");

        void start() {
            lines.clear();
            root.addHandler(this);
        }

        void stop() {
            root.removeHandler(this);
        }

        List<String> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void publish(LogRecord record) {
            lines.add(new java.util.logging.SimpleFormatter().formatMessage(record));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
