package dev.usher.it;

import io.netty.util.NetUtil;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A throwaway CA for the HTTPS backends of a test, and the leaves they serve: valid ones, expired ones, ones for
 * another name, and client certificates. EC P-256; PEM files for Usher's {@code upstream_tls}.
 */
final class BackendCerts {
    record Leaf(X509Certificate certificate, PrivateKey key) {
        /** Writes {@code NAME.crt} and {@code NAME.key}; returns the certificate's path. */
        Path write(Path dir, String name) throws Exception {
            Files.writeString(dir.resolve(name + ".key"), pem("PRIVATE KEY", key.getEncoded()));
            return Files.writeString(dir.resolve(name + ".crt"), pem("CERTIFICATE", certificate.getEncoded()));
        }
    }

    private final AtomicLong serial = new AtomicLong(System.nanoTime());
    private final KeyPair caKeys = keyPair();
    private final X509Certificate ca;

    BackendCerts() throws Exception {
        X500Name name = new X500Name("CN=Backend test CA");
        Instant now = Instant.now();
        ca = sign(new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(serial.incrementAndGet()),
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(30))), name,
                caKeys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)));
    }

    X509Certificate ca() {
        return ca;
    }

    /** Writes the CA certificate as PEM. */
    Path writeCa(Path dir) throws Exception {
        return Files.writeString(dir.resolve("backend-ca.pem"), pem("CERTIFICATE", ca.getEncoded()));
    }

    /** A leaf valid now for {@code names} (DNS names or IP addresses). */
    Leaf leaf(String... names) throws Exception {
        Instant now = Instant.now();
        return leaf(now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(7)), names);
    }

    /** A leaf that expired yesterday. */
    Leaf expired(String... names) throws Exception {
        Instant now = Instant.now();
        return leaf(now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)), names);
    }

    private Leaf leaf(Instant notBefore, Instant notAfter, String... names) throws Exception {
        KeyPair keys = keyPair();
        GeneralName[] general = new GeneralName[names.length];
        for (int i = 0; i < names.length; i++) {
            boolean ip = NetUtil.isValidIpV4Address(names[i]) || NetUtil.isValidIpV6Address(names[i]);
            general[i] = new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, names[i]);
        }
        X509Certificate cert = sign(new JcaX509v3CertificateBuilder(new X500Name("CN=Backend test CA"),
                BigInteger.valueOf(serial.incrementAndGet()), Date.from(notBefore), Date.from(notAfter),
                new X500Name("CN=" + names[0]), keys.getPublic())
                .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(general)));
        return new Leaf(cert, keys.getPrivate());
    }

    private X509Certificate sign(org.bouncycastle.cert.X509v3CertificateBuilder builder) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(caKeys.getPrivate())));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
