package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificatePairsTest {
    @TempDir
    Path tmp;

    @Test
    void namesSharingOnePairOfFilesGetTheOneReadingOfIt() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        Path cert = tmp.resolve("shared.crt");
        Path key = tmp.resolve("shared.key");
        CertifiedKey issued = ca.issue("shared.test");
        Files.writeString(cert, Pem.certificates(issued.chain()));
        Files.writeString(key, Pem.privateKey(issued.key()));
        CertificatePairs pairs = new CertificatePairs();

        CertifiedKey first = pairs.read(cert, key, 1, 2);
        // the same files by another spelling of the path, unchanged: no second reading
        assertThat(pairs.read(tmp.resolve(".").resolve("shared.crt"), key, 1, 2)).isSameAs(first);
        assertThat(first.sha256()).isEqualTo(issued.sha256());

        // a replaced pair (new modification times) is read anew
        CertifiedKey renewed = ca.issue("shared.test");
        Files.writeString(cert, Pem.certificates(renewed.chain()));
        Files.writeString(key, Pem.privateKey(renewed.key()));
        CertifiedKey second = pairs.read(cert, key, 3, 4);
        assertThat(second).isNotSameAs(first);
        assertThat(second.sha256()).isEqualTo(renewed.sha256());
    }

    @Test
    void aPairThatCannotBeReadIsNotRemembered() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        CertifiedKey a = ca.issue("a.test");
        Path cert = tmp.resolve("a.crt");
        Path key = tmp.resolve("a.key");
        Files.writeString(cert, Pem.certificates(a.chain()));
        Files.writeString(key, Pem.privateKey(ca.issue("b.test").key()));
        CertificatePairs pairs = new CertificatePairs();

        assertThatThrownBy(() -> pairs.read(cert, key, 1, 1)).isInstanceOf(PemException.class)
                .hasMessageContaining("does not belong");
        // the right key copied in within the same millisecond (same times): the next look reads it
        Files.writeString(key, Pem.privateKey(a.key()));
        assertThat(pairs.read(cert, key, 1, 1).sha256()).isEqualTo(a.sha256());
    }
}
