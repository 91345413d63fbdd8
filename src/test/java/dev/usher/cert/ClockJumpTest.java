package dev.usher.cert;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clock moved forward by a week under a running Usher (a VM resumed, NTP catching up after weeks off): the
 * renewal timers were set by the old time, but the next look at the certificate goes by the new one, so the local
 * CA's 7-day certificate (expired by the new clock) is renewed at once, and the next renewal is scheduled from the
 * new certificate, by the new clock, without renewing in a loop. The clock is a test clock given to the
 * certificate manager (and through it to the local CA), so the machine's clock is not touched.
 */
class ClockJumpTest {
    @TempDir
    Path data;

    /** A clock that a test moves. */
    static final class MovableClock extends Clock {
        private volatile Instant now;

        MovableClock(Instant start) {
            this.now = start;
        }

        void forward(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private static CertificateStatus awaitStatus(CertManager certs, java.util.function.Predicate<
            CertificateStatus> wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        CertificateStatus last = null;
        while (System.nanoTime() < deadline) {
            last = certs.status().getFirst();
            if (wanted.test(last)) {
                return last;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("not reached; last status " + last);
    }

    @Test
    void aWeekForwardRenewsAtOnceAndSchedulesTheNextRenewalByTheNewClock() throws Exception {
        MovableClock clock = new MovableClock(Instant.now());
        UsherConfig config = ConfigLoader.parse("""
                data: %s
                sites:
                  app.test: {to: "127.0.0.1:9", tls: internal}
                """.formatted(data), "clock.yaml");
        try (CertManager certs = new CertManager(new CertStore(data), new ChallengeAnswers(),
                new Retry(Duration.ofMillis(200), Duration.ofSeconds(2)), Duration.ofSeconds(10), clock,
                Duration.ofMillis(300))) {
            certs.start();
            certs.apply(config);
            CertificateStatus first = certs.status().getFirst();
            assertThat(first.state()).isEqualTo("valid");
            Instant start = clock.instant();
            assertThat(first.notAfter()).isBetween(start.plus(Duration.ofDays(6)), start.plus(Duration.ofDays(8)));

            clock.forward(Duration.ofDays(7).plusHours(1)); // past the certificate's end by the new clock
            Instant jumped = clock.instant();
            CertificateStatus renewed = awaitStatus(certs, s -> !s.sha256().equals(first.sha256()));
            assertThat(renewed.state()).isEqualTo("valid");
            assertThat(renewed.notBefore()).isAfter(jumped.minus(Duration.ofDays(1)));
            assertThat(renewed.notAfter()).isAfter(jumped.plus(Duration.ofDays(6)));
            assertThat(renewed.nextRenewal()).as("the next look, by the new clock")
                    .isBetween(jumped, jumped.plus(Duration.ofSeconds(5)));
            assertThat(certs.certificateFor("app.test").sha256()).isEqualTo(renewed.sha256());

            Thread.sleep(1_500); // five rechecks: the new certificate is not due, so none renews it again
            assertThat(certs.status().getFirst().sha256()).isEqualTo(renewed.sha256());

            clock.forward(Duration.ofDays(5)); // past two thirds of the new one's life: due again, renewed again
            CertificateStatus again = awaitStatus(certs, s -> !s.sha256().equals(renewed.sha256()));
            assertThat(again.notAfter()).isAfter(clock.instant().plus(Duration.ofDays(6)));
        }
    }

    @Test
    void aStoredCertificateExpiredByTheClockAtStartIsReplaced() throws Exception {
        MovableClock clock = new MovableClock(Instant.now());
        UsherConfig config = ConfigLoader.parse("""
                data: %s
                sites:
                  app.test: {to: "127.0.0.1:9", tls: internal}
                """.formatted(data), "clock.yaml");
        Retry retry = new Retry(Duration.ofMillis(200), Duration.ofSeconds(2));
        String before;
        try (CertManager certs = new CertManager(new CertStore(data), new ChallengeAnswers(), retry,
                Duration.ofSeconds(10), clock, Duration.ofHours(6))) {
            certs.start();
            certs.apply(config);
            before = certs.status().getFirst().sha256();
        }
        clock.forward(Duration.ofDays(8)); // Usher was down a week and the clock was right when it came back
        try (CertManager certs = new CertManager(new CertStore(data), new ChallengeAnswers(), retry,
                Duration.ofSeconds(10), clock, Duration.ofHours(6))) {
            certs.start();
            certs.apply(config);
            CertificateStatus status = certs.status().getFirst();
            assertThat(status.sha256()).isNotEqualTo(before);
            assertThat(status.state()).isEqualTo("valid");
            assertThat(status.notAfter()).isAfter(clock.instant().plus(Duration.ofDays(6)));
            assertThat(status.nextRenewal()).isBetween(clock.instant(), clock.instant().plus(Duration.ofHours(6)));
        }
    }
}
