package dev.usher.tls;

import dev.usher.cert.CertifiedKey;
import io.netty.util.NetUtil;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** A throwaway CA and the certificates the tests serve: EC P-256 leaves with DNS and IP SANs. */
final class TestPki {
    private static final ASN1ObjectIdentifier ACME_IDENTIFIER = new ASN1ObjectIdentifier("1.3.6.1.5.5.7.1.31");
    private final AtomicLong serial = new AtomicLong(System.nanoTime());
    private final KeyPair caKeys = keyPair();
    private final X509Certificate ca;

    TestPki() {
        try {
            X500Name name = new X500Name("CN=Usher test CA");
            X509v3CertificateBuilder builder = builder(name, name, caKeys)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            ca = sign(builder, caKeys);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    X509Certificate ca() {
        return ca;
    }

    /** A leaf signed by the CA for {@code names} (DNS names or IP addresses). */
    CertifiedKey leaf(String... names) {
        try {
            KeyPair keys = keyPair();
            X509v3CertificateBuilder builder = builder(new X500Name("CN=Usher test CA"), new X500Name("CN=" + names[0]),
                    keys).addExtension(Extension.subjectAlternativeName, false, sans(names));
            return new CertifiedKey(List.of(sign(builder, caKeys), ca), keys.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A self-signed TLS-ALPN-01 challenge certificate (RFC 8737): the name and a critical acmeIdentifier. */
    CertifiedKey challenge(String name) {
        try {
            KeyPair keys = keyPair();
            X500Name subject = new X500Name("CN=ACME challenge");
            byte[] digest = new byte[32];
            new SecureRandom().nextBytes(digest);
            X509v3CertificateBuilder builder = builder(subject, subject, keys)
                    .addExtension(Extension.subjectAlternativeName, false, sans(name))
                    .addExtension(ACME_IDENTIFIER, true, new DEROctetString(digest));
            return new CertifiedKey(List.of(sign(builder, keys)), keys.getPrivate());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A client context trusting only this CA. */
    SSLContext clientContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Writes the CA certificate as PEM, for curl and openssl. */
    Path writeCaPem(Path dir) throws Exception {
        String pem = "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(ca.getEncoded())
                + "\n-----END CERTIFICATE-----\n";
        return Files.writeString(dir.resolve("ca.pem"), pem);
    }

    private X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(serial.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(7))), subject,
                keys.getPublic());
    }

    private static GeneralNames sans(String... names) {
        GeneralName[] general = new GeneralName[names.length];
        for (int i = 0; i < names.length; i++) {
            boolean ip = NetUtil.isValidIpV4Address(names[i]) || NetUtil.isValidIpV6Address(names[i]);
            general[i] = new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, names[i]);
        }
        return new GeneralNames(general);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
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
