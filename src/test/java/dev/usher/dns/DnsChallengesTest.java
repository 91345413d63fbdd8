package dev.usher.dns;

import dev.usher.config.DnsServer;
import dev.usher.config.DnsSettings;
import dev.usher.config.Secret;
import dev.usher.testing.Bind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * DNS-01 records through RFC 2136 against real BIND: a primary, and a secondary that transfers each change three
 * seconds late, so the wait for every authoritative server is real. Values are presented side by side (the names of
 * one order at the same time), CNAMEs followed to the zone that really holds the record, and every record is removed
 * again, also after a failure.
 */
class DnsChallengesTest {
    static final Duration LATE = Duration.ofSeconds(3);
    static Bind bind;
    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        bind = Bind.builder()
                .zone("usher.example", "_acme-challenge.delegated IN CNAME delegated.challenges.example.")
                .zone("challenges.example")
                .secondary(LATE)
                .start();
    }

    @AfterAll
    static void stop() {
        if (bind != null) {
            bind.close();
        }
    }

    static DnsSettings rfc2136(Duration propagation, String secret) {
        return new DnsSettings(new DnsSettings.Rfc2136(new DnsServer("127.0.0.1", bind.port()), bind.keyName(),
                "hmac-sha256", new Secret(secret, "the test")), null, propagation,
                List.of(new DnsServer("127.0.0.1", bind.port())), bind.port());
    }

    static String value(char c) {
        return String.valueOf(c).repeat(43);
    }

    @Test
    void twoValuesAtOneNameReachBothServersBeforeTheWaitEndsAndAreRemovedAfter() throws Exception {
        try (DnsChallenges dns = DnsChallenges.open(rfc2136(Duration.ofSeconds(30), bind.keySecret()))) {
            long started;
            try (DnsChallenges.Round round = dns.round()) {
                // *.both.usher.example and both.usher.example validate at the same name, at the same time
                round.present(List.of(new DnsChallenges.Wanted("both.usher.example", value('a')),
                        new DnsChallenges.Wanted("both.usher.example", value('b'))));
                assertThat(bind.dig("127.0.0.1", "_acme-challenge.both.usher.example", "TXT"))
                        .containsExactlyInAnyOrder("\"" + value('a') + "\"", "\"" + value('b') + "\"");
                assertThat(bind.dig("::1", "_acme-challenge.both.usher.example", "TXT"))
                        .as("the secondary has not transferred yet").isEmpty();
                started = System.nanoTime();
                round.awaitPropagation();
                assertThat(Duration.ofNanos(System.nanoTime() - started)).as("waited for the late secondary")
                        .isGreaterThan(Duration.ofSeconds(1));
                assertThat(bind.dig("::1", "_acme-challenge.both.usher.example", "TXT"))
                        .containsExactlyInAnyOrder("\"" + value('a') + "\"", "\"" + value('b') + "\"");
            }
            assertThat(bind.dig("127.0.0.1", "_acme-challenge.both.usher.example", "TXT")).isEmpty();
            bind.awaitSecondary("usher.example", Duration.ofSeconds(10));
            assertThat(bind.dig("::1", "_acme-challenge.both.usher.example", "TXT")).isEmpty();
        }
    }

    @Test
    void theNamesOfOneOrderArePresentedAtTheSameTime() throws Exception {
        // A hook that adds its value only once the other name's call has started too: presented one after the
        // other, the first call would wait alone and fail.
        Path calls = Files.createDirectory(dir.resolve("calls"));
        Path nsupdate = bind.writeNsupdateHook(dir.resolve("nsupdate-hook.sh"), null);
        Path hook = Files.writeString(dir.resolve("together-hook.sh"), """
                #!/bin/sh
                set -eu
                if [ "$1" = present ]; then
                  : > "%1$s/$2"
                  tries=0
                  while [ "$(ls "%1$s" | wc -l)" -lt 2 ]; do
                    tries=$((tries + 1))
                    [ "$tries" -le 150 ] || { echo "presented alone: the other name's call never started"; exit 1; }
                    sleep 0.1
                  done
                fi
                exec "%2$s" "$@"
                """.formatted(calls, nsupdate));
        Files.setPosixFilePermissions(hook, PosixFilePermissions.fromString("rwx------"));
        DnsSettings exec = new DnsSettings(new DnsSettings.Exec(List.of(hook.toString()), Duration.ofSeconds(30)),
                null, Duration.ofSeconds(30), List.of(new DnsServer("127.0.0.1", bind.port())), bind.port());
        try (DnsChallenges dns = DnsChallenges.open(exec)) {
            try (DnsChallenges.Round round = dns.round()) {
                round.present(List.of(new DnsChallenges.Wanted("one.usher.example", value('c')),
                        new DnsChallenges.Wanted("two.usher.example", value('d'))));
                assertThat(bind.dig("127.0.0.1", "_acme-challenge.one.usher.example", "TXT"))
                        .containsExactly("\"" + value('c') + "\"");
                assertThat(bind.dig("127.0.0.1", "_acme-challenge.two.usher.example", "TXT"))
                        .containsExactly("\"" + value('d') + "\"");
            }
            assertThat(bind.dig("127.0.0.1", "_acme-challenge.one.usher.example", "TXT")).isEmpty();
            assertThat(bind.dig("127.0.0.1", "_acme-challenge.two.usher.example", "TXT")).isEmpty();
        }
    }

    @Test
    void aCnameOnTheChallengeNameIsFollowedToTheZoneThatHoldsTheRecord() throws Exception {
        try (DnsChallenges dns = DnsChallenges.open(rfc2136(Duration.ofSeconds(30), bind.keySecret()));
             DnsChallenges.Round round = dns.round()) {
            round.present(List.of(new DnsChallenges.Wanted("delegated.usher.example", value('c'))));
            assertThat(bind.dig("127.0.0.1", "delegated.challenges.example", "TXT"))
                    .containsExactly("\"" + value('c') + "\"");
            assertThat(bind.dig("127.0.0.1", "_acme-challenge.delegated.usher.example", "TXT"))
                    .as("the CNAME itself, and the record it leads to").contains("delegated.challenges.example.");
            round.awaitPropagation();
            round.close();
            assertThat(bind.dig("127.0.0.1", "delegated.challenges.example", "TXT")).isEmpty();
        }
    }

    @Test
    void aSecondaryTooLateForTheTimeoutIsNamedAndTheRecordIsStillRemoved() throws Exception {
        try (DnsChallenges dns = DnsChallenges.open(rfc2136(Duration.ofSeconds(1), bind.keySecret()))) {
            DnsChallenges.Round round = dns.round();
            round.present(List.of(new DnsChallenges.Wanted("late.usher.example", value('d'))));
            assertThatThrownBy(round::awaitPropagation).isInstanceOf(DnsException.class)
                    .hasMessageContaining("ns2.usher.example lacks _acme-challenge.late.usher.example TXT \"dddddddd…\"")
                    .hasMessageContaining("[::1]:" + bind.port() + " has no TXT record there yet")
                    .hasMessageContaining("propagation_timeout");
            round.close();
            assertThat(bind.dig("127.0.0.1", "_acme-challenge.late.usher.example", "TXT")).isEmpty();
        }
    }

    @Test
    void aWrongTsigSecretIsRefusedInTheServersWords() throws Exception {
        String wrong = java.util.Base64.getEncoder().encodeToString("not the key at all, not at all".getBytes());
        try (DnsChallenges dns = DnsChallenges.open(rfc2136(Duration.ofSeconds(5), wrong));
             DnsChallenges.Round round = dns.round()) {
            assertThatThrownBy(() -> round.present(List.of(new DnsChallenges.Wanted("app.usher.example",
                    value('e'))))).isInstanceOf(DnsException.class)
                    .hasMessageContaining("rfc2136: 127.0.0.1:" + bind.port() + " refused to add "
                            + "_acme-challenge.app.usher.example")
                    .hasMessageContaining("NOTAUTH").hasMessageContaining("BADSIG")
                    .hasMessageContaining("does not know the key usher-test");
        }
    }

    @Test
    void closingStopsAWaitInFlightAndRemovesItsRecords() throws Exception {
        DnsChallenges dns = DnsChallenges.open(rfc2136(Duration.ofSeconds(60), bind.keySecret()));
        DnsChallenges.Round round = dns.round();
        round.present(List.of(new DnsChallenges.Wanted("stopping.usher.example", value('f'))));
        Thread waiting = Thread.ofVirtual().start(() -> {
            try {
                round.awaitPropagation();
            } catch (Exception e) {
                // interrupted: the order is being stopped
            } finally {
                round.close();
            }
        });
        Thread.sleep(300);
        waiting.interrupt();
        dns.close();
        waiting.join(5000);
        assertThat(bind.dig("127.0.0.1", "_acme-challenge.stopping.usher.example", "TXT")).isEmpty();
    }
}
