package dev.usher.cert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PemTest {
    private static final Path OPENSSL = Path.of("/usr/bin/openssl");

    @TempDir
    Path tmp;

    /** openssl writes each key form users bring; the certificate is self-signed by that key. */
    @ParameterizedTest
    @ValueSource(strings = {"pkcs8-ec", "sec1-ec", "pkcs8-rsa", "pkcs1-rsa", "pkcs8-ed25519"})
    void readsTheKeyFormsOpensslWrites(String form) throws Exception {
        assumeTrue(Files.isExecutable(OPENSSL), "needs openssl");
        Path key = tmp.resolve(form + ".key");
        Path cert = tmp.resolve(form + ".crt");
        String type = form.substring(form.indexOf('-') + 1);
        switch (type) {
            case "ec" -> openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key);
            case "rsa" -> openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key);
            default -> openssl("genpkey", "-algorithm", "ED25519", "-out", key);
        }
        if (form.equals("sec1-ec")) {
            openssl("ec", "-in", key, "-out", key);
        } else if (form.equals("pkcs1-rsa")) {
            openssl("rsa", "-in", key, "-traditional", "-out", key);
        }
        openssl("req", "-x509", "-new", "-key", key, "-subj", "/CN=app.example.com", "-days", "2", "-out", cert);
        String header = Files.readString(key).lines().findFirst().orElseThrow();
        assertThat(header).isEqualTo(switch (form) {
            case "sec1-ec" -> "-----BEGIN EC PRIVATE KEY-----";
            case "pkcs1-rsa" -> "-----BEGIN RSA PRIVATE KEY-----";
            default -> "-----BEGIN PRIVATE KEY-----";
        });

        CertifiedKey ck = Pem.readCertifiedKey(cert, key);
        assertThat(ck.leaf().getSubjectX500Principal().getName()).isEqualTo("CN=app.example.com");

        // the same pair written back as PKCS#8 reads the same
        Path rewritten = tmp.resolve(form + ".pk8");
        Files.writeString(rewritten, Pem.privateKey(ck.key()));
        assertThat(Pem.readPrivateKey(rewritten).getEncoded()).isEqualTo(ck.key().getEncoded());
    }

    @Test
    void readsBouncyCastleTraditionalKeysAndCombinedFiles() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        CertifiedKey cert = ca.issue("app.test");
        Path combined = tmp.resolve("combined.pem");
        var text = new java.io.StringWriter();
        try (var w = new org.bouncycastle.openssl.jcajce.JcaPEMWriter(text)) {
            // BC writes its own EC keys as SEC1 "EC PRIVATE KEY" with the curve inside, as openssl does
            w.writeObject(java.security.KeyFactory.getInstance("EC",
                    new org.bouncycastle.jce.provider.BouncyCastleProvider()).generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(cert.key().getEncoded())));
        }
        assertThat(text.toString()).startsWith("-----BEGIN EC PRIVATE KEY-----");
        Files.writeString(combined, "some comment\n" + Pem.certificates(cert.chain()) + text);

        CertifiedKey read = Pem.readCertifiedKey(combined, combined);
        assertThat(read.chain()).isEqualTo(cert.chain());
        assertThat(read.sha256()).isEqualTo(cert.sha256());
    }

    @Test
    void refusesAKeyThatIsNotTheCertificatesNamingTheFile() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        Path cert = tmp.resolve("a.crt");
        Path key = tmp.resolve("b.key");
        Files.writeString(cert, Pem.certificates(ca.issue("a.test").chain()));
        Files.writeString(key, Pem.privateKey(ca.issue("b.test").key()));

        assertThatThrownBy(() -> Pem.readCertifiedKey(cert, key)).isInstanceOf(PemException.class)
                .hasMessageContaining(key.toString()).hasMessageContaining("does not belong")
                .hasMessageContaining("a.crt");
    }

    /** openssl's keys carry their public half, which is compared first: another certificate's key is still refused. */
    @ParameterizedTest
    @ValueSource(strings = {"EC", "RSA"})
    void refusesAnOpensslKeyOfAnotherCertificate(String algorithm) throws Exception {
        assumeTrue(Files.isExecutable(OPENSSL), "needs openssl");
        String option = algorithm.equals("EC") ? "ec_paramgen_curve:P-256" : "rsa_keygen_bits:2048";
        Path keyA = tmp.resolve("a.key");
        Path keyB = tmp.resolve("b.key");
        Path certA = tmp.resolve("a.crt");
        openssl("genpkey", "-algorithm", algorithm, "-pkeyopt", option, "-out", keyA);
        openssl("genpkey", "-algorithm", algorithm, "-pkeyopt", option, "-out", keyB);
        openssl("req", "-x509", "-new", "-key", keyA, "-subj", "/CN=a.example.com", "-days", "2", "-out", certA);

        assertThat(Pem.readCertifiedKey(certA, keyA).leaf().getSubjectX500Principal().getName())
                .isEqualTo("CN=a.example.com");
        assertThatThrownBy(() -> Pem.readCertifiedKey(certA, keyB)).isInstanceOf(PemException.class)
                .hasMessageContaining("does not belong");
    }

    @Test
    void matchesEcKeysThatBouncyCastleNamesEcdsa() throws Exception {
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        CertifiedKey cert = ca.issue("bc.test");
        PrivateKey bcKey = java.security.KeyFactory.getInstance("ECDSA",
                new org.bouncycastle.jce.provider.BouncyCastleProvider())
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(cert.key().getEncoded()));
        assertThat(bcKey.getAlgorithm()).isEqualTo("ECDSA");
        assertThat(Pem.matches(bcKey, cert.leaf().getPublicKey())).isTrue();
    }

    @Test
    void refusesAnRsaKeyForAnEcCertificate() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        PrivateKey rsaKey = rsa.generateKeyPair().getPrivate();
        LocalCa ca = LocalCa.open(new CertStore(tmp.resolve("data")));
        assertThat(Pem.matches(rsaKey, ca.issue("a.test").leaf().getPublicKey())).isFalse();
    }

    @Test
    void explainsMissingAndEncryptedContent() throws Exception {
        Path empty = Files.writeString(tmp.resolve("empty.pem"), "");
        assertThatThrownBy(() -> Pem.readCertificates(empty)).isInstanceOf(PemException.class)
                .hasMessageContaining("empty.pem").hasMessageContaining("no certificate");
        assertThatThrownBy(() -> Pem.readPrivateKey(empty)).isInstanceOf(PemException.class)
                .hasMessageContaining("no private key");

        Path truncated = Files.writeString(tmp.resolve("cut.pem"), "-----BEGIN CERTIFICATE-----\nMIIBIjAN\n");
        assertThatThrownBy(() -> Pem.readCertificates(truncated)).isInstanceOf(PemException.class)
                .hasMessageContaining("cut.pem");

        Path encrypted = Files.writeString(tmp.resolve("enc.key"), "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
                + encryptedKeyBase64() + "\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThatThrownBy(() -> Pem.readPrivateKey(encrypted)).isInstanceOf(PemException.class)
                .hasMessageContaining("encrypted");
    }

    @Test
    void keyPairFileKeepsBothHalves() throws Exception {
        KeyPair pair = CertStore.newEcKeyPair();
        Path file = Files.writeString(tmp.resolve("account.key"),
                Pem.privateKey(pair.getPrivate()) + Pem.publicKey(pair.getPublic()));
        KeyPair read = Pem.readKeyPair(file);
        // compared by use, not encoding: with Bouncy Castle registered (ACME does that) keys may come back from it
        assertThat(read.getPublic().getEncoded()).isEqualTo(pair.getPublic().getEncoded());
        assertThat(Pem.matches(read.getPrivate(), pair.getPublic())).isTrue();
        assertThat(List.of(Files.readString(file).split("\n"))).contains("-----BEGIN PUBLIC KEY-----");
    }

    private String encryptedKeyBase64() throws Exception {
        KeyPair pair = CertStore.newEcKeyPair();
        var builder = new org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder(
                org.bouncycastle.openssl.PKCS8Generator.AES_256_CBC);
        builder.setPassword("pw".toCharArray());
        builder.setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider());
        var gen = new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(pair.getPrivate(), builder.build());
        return java.util.Base64.getMimeEncoder().encodeToString(gen.generate().getContent());
    }

    private void openssl(Object... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(OPENSSL.toString()));
        for (Object a : args) {
            cmd.add(a.toString());
        }
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + "\n" + out).isZero();
    }
}
