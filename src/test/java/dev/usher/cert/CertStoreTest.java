package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertStoreTest {
    @TempDir
    Path tmp;
    Path data;
    CertStore store;
    LocalCa ca;

    @BeforeEach
    void setUp() throws Exception {
        data = tmp.resolve("data");
        store = new CertStore(data);
        ca = LocalCa.open(new CertStore(tmp.resolve("ca-only")));
    }

    @Test
    void savedCertificateLoadsBackUnchangedAlsoAfterARestart() throws Exception {
        CertifiedKey cert = ca.issue("app.test");
        store.save("acme-le", "app.test", cert);

        CertifiedKey loaded = store.load("acme-le", "app.test").orElseThrow();
        assertThat(loaded.sha256()).isEqualTo(cert.sha256());
        assertThat(loaded.chain()).isEqualTo(cert.chain());
        assertThat(loaded.key().getEncoded()).isEqualTo(cert.key().getEncoded());
        assertThat(new CertStore(data).load("acme-le", "app.test").orElseThrow().sha256()).isEqualTo(cert.sha256());
    }

    @Test
    void saveReplacesThePreviousCertificate() throws Exception {
        store.save("local", "app.test", ca.issue("app.test"));
        CertifiedKey second = ca.issue("app.test");
        store.save("local", "app.test", second);

        assertThat(store.load("local", "app.test").orElseThrow().sha256()).isEqualTo(second.sha256());
    }

    @Test
    void absentCertificateIsEmpty() {
        assertThat(store.load("local", "nothing.test")).isEmpty();
    }

    @Test
    void keysAre0600FoldersAre0700AndNoTemporaryFilesRemain() throws Exception {
        store.save("local", "*.app.test", ca.issue("*.app.test"));
        store.accountKey("acme-le");
        Path dir = data.resolve("certificates/local/wildcard_.app.test");

        assertThat(mode(dir.resolve("key.pem"))).isEqualTo("rw-------");
        assertThat(mode(data.resolve("accounts/acme-le/account.key"))).isEqualTo("rw-------");
        assertThat(mode(dir.resolve("cert.pem"))).isIn("rw-r--r--", "rw-------");
        for (Path d : List.of(data, data.resolve("certificates"), data.resolve("certificates/local"), dir,
                data.resolve("accounts/acme-le"))) {
            assertThat(mode(d)).as(d.toString()).isEqualTo("rwx------");
        }
        try (Stream<Path> all = Files.walk(data)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".tmp-"));
        }
        assertThat(Files.readString(dir.resolve("meta.json"))).contains("\"name\":\"*.app.test\"",
                "\"issuer\":\"local\"", "\"sha256\":\"", "\"notAfter\":\"", "\"savedAt\":\"");
    }

    @Test
    void garbageCertificateIsMovedAsideAndReadsAsAbsent() throws Exception {
        assertDamageIsHandled("cert.pem", "hello, this is not PEM\n".getBytes());
    }

    @Test
    void emptyCertificateIsMovedAside() throws Exception {
        assertDamageIsHandled("cert.pem", new byte[0]);
    }

    @Test
    void truncatedCertificateIsMovedAside() throws Exception {
        store.save("local", "app.test", ca.issue("app.test"));
        byte[] full = Files.readAllBytes(data.resolve("certificates/local/app.test/cert.pem"));
        assertDamageIsHandled("cert.pem", java.util.Arrays.copyOf(full, full.length / 3));
    }

    @Test
    void truncatedKeyIsMovedAside() throws Exception {
        store.save("local", "app.test", ca.issue("app.test"));
        byte[] full = Files.readAllBytes(data.resolve("certificates/local/app.test/key.pem"));
        assertDamageIsHandled("key.pem", java.util.Arrays.copyOf(full, full.length - 40));
    }

    @Test
    void keyOfAnotherCertificateIsMovedAside() throws Exception {
        store.save("local", "other.test", ca.issue("other.test"));
        assertDamageIsHandled("key.pem",
                Files.readAllBytes(data.resolve("certificates/local/other.test/key.pem")));
    }

    @Test
    void missingKeyIsDamageButMissingMetaIsNot() throws Exception {
        CertifiedKey cert = ca.issue("app.test");
        store.save("local", "app.test", cert);
        Path dir = data.resolve("certificates/local/app.test");
        Files.delete(dir.resolve("meta.json"));
        assertThat(store.load("local", "app.test")).isPresent();

        Files.delete(dir.resolve("key.pem"));
        assertThat(store.load("local", "app.test")).isEmpty();
        assertThat(damaged(dir)).anyMatch(n -> n.startsWith("cert.pem.damaged-"));
    }

    @Test
    void accountKeyIsCreatedOnceAndReusedAcrossInstances() throws Exception {
        KeyPair first = store.accountKey("acme-le");
        KeyPair again = store.accountKey("acme-le");
        KeyPair fromRestart = new CertStore(data).accountKey("acme-le");

        assertThat(first.getPrivate().getAlgorithm()).isEqualTo("EC");
        assertThat(again.getPrivate().getEncoded()).isEqualTo(first.getPrivate().getEncoded());
        assertThat(fromRestart.getPublic().getEncoded()).isEqualTo(first.getPublic().getEncoded());
        assertThat(store.accountKey("acme-staging").getPublic()).isNotEqualTo(first.getPublic());
    }

    @Test
    void damagedAccountKeyIsReplaced() throws Exception {
        KeyPair first = store.accountKey("acme-le");
        Path file = data.resolve("accounts/acme-le/account.key");
        Files.writeString(file, "-----BEGIN PRIVATE KEY-----\nAAAA\n");

        KeyPair second = store.accountKey("acme-le");
        assertThat(second.getPublic()).isNotEqualTo(first.getPublic());
        assertThat(damaged(file.getParent())).anyMatch(n -> n.startsWith("account.key.damaged-"));
        assertThat(store.accountKey("acme-le").getPublic()).isEqualTo(second.getPublic());
    }

    @Test
    void listsStoredNames() throws Exception {
        store.save("local", "b.test", ca.issue("b.test"));
        store.save("local", "*.a.test", ca.issue("*.a.test"));
        store.save("local", "::1", ca.issue("::1"));

        assertThat(store.names("local")).containsExactly("*.a.test", "::1", "b.test");
        assertThat(store.names("acme-le")).isEmpty();
    }

    private void assertDamageIsHandled(String file, byte[] content) throws Exception {
        store.save("local", "app.test", ca.issue("app.test"));
        Path dir = data.resolve("certificates/local/app.test");
        Files.write(dir.resolve(file), content);

        assertThat(store.load("local", "app.test")).isEmpty();
        assertThat(damaged(dir)).anyMatch(n -> n.startsWith(file + ".damaged-"));
        assertThat(dir.resolve("cert.pem")).doesNotExist();
        assertThat(store.load("local", "app.test")).isEmpty();

        CertifiedKey fresh = ca.issue("app.test");
        store.save("local", "app.test", fresh);
        assertThat(store.load("local", "app.test").orElseThrow().sha256()).isEqualTo(fresh.sha256());
    }

    private static List<String> damaged(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".damaged-")).toList();
        }
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
