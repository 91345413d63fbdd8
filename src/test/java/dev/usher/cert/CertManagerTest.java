package dev.usher.cert;

import dev.usher.config.ConfigLoader;
import dev.usher.config.UsherConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The certificate manager on its own, with the local CA as issuer and a real data directory. */
class CertManagerTest {
    @TempDir
    Path data;

    private UsherConfig config(String sites) throws Exception {
        return ConfigLoader.parse("data: \"" + data + "\"\nsites:\n" + sites, "test");
    }

    private CertManager manager() {
        return new CertManager(new CertStore(data), new ChallengeAnswers(), Retry.DEFAULT, Duration.ofSeconds(10));
    }

    @Test
    void startsNoThreadUntilStartedAndRefusesWorkBeforeAndAfterItsLife() throws Exception {
        UsherConfig config = config("  app.localhost: 127.0.0.1:9\n");
        long before = certificateThreads();
        CertManager certificates = manager();
        assertThat(certificateThreads()).isLessThanOrEqualTo(before); // other tests' managers may be ending
        assertThatThrownBy(() -> certificates.apply(config)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("start() first");
        certificates.start();
        certificates.apply(config);
        assertThat(certificates.certificateFor("app.localhost")).isNotNull();
        certificates.close();
        assertThatThrownBy(() -> certificates.apply(config)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void servesLocalCertificatesAtOnceByExactNameThenOneLabelWildcard() throws Exception {
        try (CertManager certificates = manager()) {
            certificates.start();
            certificates.apply(config("  app.localhost: 127.0.0.1:9\n  \"*.dev.localhost\": 127.0.0.1:9\n"));
            CertifiedKey app = certificates.certificateFor("app.localhost");
            assertThat(app).isNotNull();
            assertThat(app.notAfter()).isAfter(java.time.Instant.now());
            assertThat(certificates.certificateFor("a.dev.localhost"))
                    .isSameAs(certificates.certificateFor("b.dev.localhost")).isNotNull();
            assertThat(certificates.certificateFor("a.b.dev.localhost")).isNull();
            assertThat(certificates.certificateFor("other.localhost")).isNull();
            assertThat(certificates.status()).extracting(CertificateStatus::name,
                            CertificateStatus::issuer, CertificateStatus::state)
                    .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("app.localhost", "local", "valid"),
                            org.assertj.core.groups.Tuple.tuple("*.dev.localhost", "local", "valid"));
        }
    }

    @Test
    void aNameNoLongerConfiguredIsRetiredAndAnUnchangedOneKeepsItsCertificate() throws Exception {
        try (CertManager certificates = manager()) {
            certificates.start();
            certificates.apply(config("  app.localhost: 127.0.0.1:9\n  old.localhost: 127.0.0.1:9\n"));
            CertifiedKey app = certificates.certificateFor("app.localhost");
            certificates.apply(config("  app.localhost: 127.0.0.1:10\n"));
            assertThat(certificates.certificateFor("old.localhost")).isNull();
            assertThat(certificates.certificateFor("app.localhost")).isSameAs(app);
            assertThat(certificates.status()).extracting(CertificateStatus::name)
                    .containsExactly("app.localhost");
        }
    }

    @Test
    void aNewManagerOnTheSameDataDirectoryServesTheStoredCertificateNotANewOne() throws Exception {
        UsherConfig config = config("  app.localhost: 127.0.0.1:9\n");
        String first;
        try (CertManager certificates = manager()) {
            certificates.start();
            certificates.apply(config);
            first = certificates.certificateFor("app.localhost").sha256();
        }
        try (CertManager again = manager()) {
            again.start();
            again.apply(config);
            assertThat(again.certificateFor("app.localhost").sha256()).isEqualTo(first);
        }
    }

    @Test
    void renewOrdersANewCertificateAndPutsItInService() throws Exception {
        try (CertManager certificates = manager()) {
            certificates.start();
            certificates.apply(config("  app.localhost: 127.0.0.1:9\n"));
            String before = certificates.certificateFor("app.localhost").sha256();
            CertifiedKey renewed = certificates.renew("app.localhost").get(30, TimeUnit.SECONDS);
            assertThat(renewed.sha256()).isNotEqualTo(before);
            assertThat(certificates.certificateFor("app.localhost").sha256()).isEqualTo(renewed.sha256());
            assertThatThrownBy(() -> certificates.renew("nope.localhost").get())
                    .isInstanceOf(ExecutionException.class).hasMessageContaining("no HTTPS site named nope.localhost");
        }
    }

    private static long certificateThreads() {
        List<Thread> all = Thread.getAllStackTraces().keySet().stream().toList();
        return all.stream().filter(t -> t.getName().equals("certificates")).count();
    }
}
