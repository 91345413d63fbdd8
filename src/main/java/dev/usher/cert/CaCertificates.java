package dev.usher.cert;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Builds the local CA's certificates: its self-signed root and the leaves it signs. Thread-safe. */
final class CaCertificates {
    static final Duration ROOT_LIFETIME = Duration.ofDays(3650);
    static final Duration LEAF_LIFETIME = Duration.ofDays(7);
    /** Validity starts this far back, so a client whose clock is a little behind accepts a fresh certificate. */
    static final Duration BACKDATE = Duration.ofHours(1);
    /** The longest common name allowed (RFC 5280 ub-common-name); longer names go only in the SAN. */
    private static final int MAX_CN = 64;

    private final SecureRandom random = new SecureRandom();

    /**
     * Signs with the JDK's own providers: Bouncy Castle's JCA provider would load thousands of classes (megabytes of
     * metaspace in a process that stays up for months) for the one signature algorithm needed here.
     */
    CaCertificates() {
    }

    /** A new self-signed root, {@code CN=Usher Local CA <8 hex>, O=Usher}, valid ten years. */
    X509Certificate root(KeyPair key, Instant now) throws GeneralSecurityException {
        byte[] suffix = new byte[4];
        random.nextBytes(suffix);
        // most significant first, as DER wants: shown as "CN=Usher Local CA 1a2b3c4d, O=Usher"
        X500Name subject = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Usher")
                .addRDN(BCStyle.CN, "Usher Local CA " + HexFormat.of().formatHex(suffix)).build();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(), Date.from(now.minus(BACKDATE)),
                Date.from(now.plus(ROOT_LIFETIME)), subject, key.getPublic());
        try {
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(key.getPublic()));
        } catch (CertIOException e) {
            throw new GeneralSecurityException(e);
        }
        return sign(b, key.getPrivate());
    }

    /** A leaf for {@code name} (DNS name, wildcard or IP literal) signed by the root, valid seven days. */
    X509Certificate leaf(String name, PublicKey leafKey, X509Certificate root, PrivateKey rootKey, Instant now)
            throws GeneralSecurityException {
        boolean ip = dev.usher.config.LocalNames.isIpAddress(name);
        X500Name subject = name.length() <= MAX_CN
                ? new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build()
                : new X500Name(new RDN[0]);
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(root, serial(), Date.from(now.minus(BACKDATE)),
                Date.from(now.plus(LEAF_LIFETIME)), subject, leafKey);
        try {
            // RFC 5280: the SAN must be critical when the subject is empty
            b.addExtension(Extension.subjectAlternativeName, name.length() > MAX_CN, new GeneralNames(
                    new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, name)));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(root));
            b.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(leafKey));
        } catch (CertIOException e) {
            throw new GeneralSecurityException(e);
        }
        return sign(b, rootKey);
    }

    /** A random positive serial number of 16 bytes (top bit clear so DER needs no sign byte; never zero). */
    private BigInteger serial() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        bytes[0] &= 0x7f;
        bytes[0] |= 0x01;
        return new BigInteger(1, bytes);
    }

    private X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(
                    b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException("cannot sign with the local CA key", e);
        }
    }
}
