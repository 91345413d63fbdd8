package dev.usher.migrate;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/** Certificates made for the import tests: self-signed leaves for given names and validity, as PEM. */
public final class TestCerts {
    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

    /**
     * One certificate and its key.
     *
     * @param certPem the certificate, PEM
     * @param keyPem  its private key, PEM ({@code EC PRIVATE KEY} or {@code RSA PRIVATE KEY}, as openssl and Go
     *                write them)
     * @param sha256  the SHA-256 of the certificate's DER, lower-case hex
     */
    public record Pair(String certPem, String keyPem, String sha256, X509Certificate cert) {
        /** This certificate with another key, which does not belong to it. */
        public Pair withWrongKey() {
            return new Pair(certPem, make(Duration.ofDays(1), Duration.ofDays(1), false, "wrong.example").keyPem(),
                    sha256, cert);
        }
    }

    private TestCerts() {
    }

    /** A certificate valid from {@code age} ago until {@code left} from now, for {@code names} (EC P-256). */
    public static Pair make(Duration age, Duration left, String... names) {
        return make(age, left, false, names);
    }

    /** As {@link #make(Duration, Duration, String...)}, with an RSA key when {@code rsa}. */
    public static Pair make(Duration age, Duration left, boolean rsa, String... names) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(rsa ? "RSA" : "EC");
            if (rsa) {
                generator.initialize(2048);
            } else {
                generator.initialize(new ECGenParameterSpec("secp256r1"));
            }
            KeyPair pair = generator.generateKeyPair();
            Instant now = Instant.now();
            X500Name subject = new X500Name("CN=" + names[0]);
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
                    BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(age)), Date.from(now.plus(left)),
                    subject, pair.getPublic());
            GeneralName[] sans = new GeneralName[names.length];
            for (int i = 0; i < names.length; i++) {
                sans[i] = new GeneralName(GeneralName.dNSName, names[i]);
            }
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder(rsa ? "SHA256withRSA" : "SHA256withECDSA").build(pair.getPrivate())));
            return new Pair(pem(cert), rsa ? pem(pair) : sec1(pair), HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(cert.getEncoded())), cert);
        } catch (GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh certificate, valid a day ago until 80 days from now. */
    public static Pair fresh(String... names) {
        return make(Duration.ofDays(1), Duration.ofDays(80), names);
    }

    /** An EC key as openssl and Go write it: SEC1 ({@code EC PRIVATE KEY}) naming its curve, with the public key. */
    private static String sec1(KeyPair pair) throws IOException {
        org.bouncycastle.asn1.pkcs.PrivateKeyInfo info = org.bouncycastle.asn1.pkcs.PrivateKeyInfo.getInstance(
                pair.getPrivate().getEncoded());
        org.bouncycastle.asn1.sec.ECPrivateKey inner = org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(
                info.parsePrivateKey());
        byte[] point = org.bouncycastle.asn1.x509.SubjectPublicKeyInfo.getInstance(pair.getPublic().getEncoded())
                .getPublicKeyData().getBytes();
        org.bouncycastle.asn1.sec.ECPrivateKey full = new org.bouncycastle.asn1.sec.ECPrivateKey(256,
                inner.getKey(), new org.bouncycastle.asn1.DERBitString(point),
                info.getPrivateKeyAlgorithm().getParameters());
        return "-----BEGIN EC PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(full.getEncoded()) + "\n-----END EC PRIVATE KEY-----\n";
    }

    private static String pem(Object o) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(text)) {
            writer.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }
}
