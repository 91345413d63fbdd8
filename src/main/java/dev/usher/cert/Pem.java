package dev.usher.cert;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.ASN1BitString;
import org.bouncycastle.asn1.DERNull;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.pkcs.RSAPrivateKey;
import org.bouncycastle.asn1.pkcs.RSAPublicKey;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads and writes PEM files: certificate chains and private keys. Reading accepts what users bring for manual
 * certificates ({@code tls: {cert: FILE, key: FILE}}): PKCS#8 {@code PRIVATE KEY}, SEC1 {@code EC PRIVATE KEY} and
 * PKCS#1 {@code RSA PRIVATE KEY}, with any text around the blocks. Writing always produces PKCS#8. Keys come back as
 * JDK key objects, so they work with the JDK's TLS and with Netty's.
 *
 * <p>Bad content raises {@link PemException} naming the file; other {@link IOException}s are I/O failures.
 */
public final class Pem {
    private Pem() {
    }

    /** The certificates in {@code file}, in file order (a chain: leaf first). Never empty. */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        return readCertificates(read(file), file);
    }

    private static List<X509Certificate> readCertificates(String text, Path file) throws IOException {
        List<X509Certificate> certs = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        for (Object o : parse(text, file)) {
            if (o instanceof X509CertificateHolder holder) {
                try {
                    certs.add(converter.getCertificate(holder));
                } catch (GeneralSecurityException | RuntimeException e) {
                    throw new PemException(file, "unreadable certificate: " + e.getMessage(), e);
                }
            }
        }
        if (certs.isEmpty()) {
            throw new PemException(file, "no certificate found (expected a -----BEGIN CERTIFICATE----- block)");
        }
        return certs;
    }

    /** The first private key in {@code file}: PKCS#8, SEC1 (EC) or PKCS#1 (RSA); unencrypted. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        return readKeyPair(file, false).getPrivate();
    }

    /**
     * A certificate chain and its key from two files (they may be the same file), checked to belong together.
     *
     * @throws PemException when either file has no usable content or the key is not the leaf certificate's
     */
    public static CertifiedKey readCertifiedKey(Path certFile, Path keyFile) throws IOException {
        return readCertifiedKey(read(certFile), certFile, read(keyFile), keyFile);
    }

    /**
     * A certificate chain and its key from PEM text held in memory (an {@code acme.json}, a database row), checked to
     * belong together; {@code certSource} and {@code keySource} name where the text came from in messages.
     *
     * @throws IOException (a {@code PemException}) when either text has no usable content or the key is not the
     *                     leaf certificate's
     */
    public static CertifiedKey readCertifiedKey(String certPem, String certSource, String keyPem, String keySource)
            throws IOException {
        return readCertifiedKey(certPem, Path.of(certSource), keyPem, Path.of(keySource));
    }

    private static CertifiedKey readCertifiedKey(String certText, Path certFile, String keyText, Path keyFile)
            throws IOException {
        List<X509Certificate> chain = readCertificates(certText, certFile);
        KeyHalves halves = readKeyHalves(keyText, keyFile);
        PrivateKey key = halves.privateKey();
        PublicKey leaf = chain.get(0).getPublicKey();
        // The public key the key file carries (openssl writes it into EC and RSA keys) is compared first: signing
        // and verifying costs a tenth of a second on a cold start. Without one, or when its encoding differs, the
        // signature decides, so a pair is never refused on the comparison alone.
        boolean belongs = halves.carried() != null && Arrays.equals(halves.carried().getEncoded(), leaf.getEncoded())
                || matches(key, leaf);
        if (!belongs) {
            throw new PemException(keyFile, "this private key does not belong to the first certificate in "
                    + certFile + " (" + chain.get(0).getSubjectX500Principal().getName() + ")");
        }
        return new CertifiedKey(chain, key);
    }

    /** Certificates as PEM text, one {@code CERTIFICATE} block each, in list order. */
    public static String certificates(List<X509Certificate> chain) {
        StringBuilder b = new StringBuilder();
        for (X509Certificate c : chain) {
            try {
                b.append(block("CERTIFICATE", c.getEncoded()));
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("certificate cannot be encoded", e);
            }
        }
        return b.toString();
    }

    /** A private key as a PKCS#8 {@code PRIVATE KEY} block. */
    public static String privateKey(PrivateKey key) {
        return block("PRIVATE KEY", key.getEncoded());
    }

    /** A public key as an X.509 {@code PUBLIC KEY} block. */
    public static String publicKey(PublicKey key) {
        return block("PUBLIC KEY", key.getEncoded());
    }

    /**
     * A key pair from {@code file}: its private key and the public key beside it (a {@code PUBLIC KEY} block, or the
     * one inside a SEC1/PKCS#1 key). Checked to belong together.
     */
    static KeyPair readKeyPair(Path file) throws IOException {
        return readKeyPair(file, true);
    }

    /** True when {@code key} is the private half of {@code publicKey}: checked by signing and verifying. */
    static boolean matches(PrivateKey key, PublicKey publicKey) {
        String alg = switch (key.getAlgorithm()) {
            // Bouncy Castle names EC keys "ECDSA" (once it is a registered provider, keys may come from it)
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
            default -> null;
        };
        if (alg == null || !sameFamily(key.getAlgorithm(), publicKey.getAlgorithm())) {
            return false;
        }
        try {
            byte[] blob = new byte[32];
            new SecureRandom().nextBytes(blob);
            Signature signer = Signature.getInstance(alg);
            signer.initSign(asJdkKey(key));
            signer.update(blob);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(alg);
            verifier.initVerify(publicKey);
            verifier.update(blob);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | RuntimeException e) {
            return false; // a key of another curve or size cannot even be used with the other half
        }
    }

    /** A Bouncy Castle key as the JDK's provider makes it (the JDK's signatures may refuse the other). */
    private static PrivateKey asJdkKey(PrivateKey key) throws GeneralSecurityException {
        if (!key.getAlgorithm().equals("ECDSA")) {
            return key;
        }
        return java.security.KeyFactory.getInstance("EC")
                .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(key.getEncoded()));
    }

    private static boolean sameFamily(String a, String b) {
        return a.equals(b) || a.startsWith("Ed") && b.startsWith("Ed") || a.startsWith("EC") && b.startsWith("EC");
    }

    /**
     * A key pair from PEM text held in memory (a private key block and its public key block), checked to belong
     * together; {@code source} names where the text came from in messages.
     */
    public static KeyPair readKeyPair(String text, String source) throws IOException {
        return readKeyPair(text, Path.of(source), true);
    }

    private static KeyPair readKeyPair(Path file, boolean needPublic) throws IOException {
        return readKeyPair(read(file), file, needPublic);
    }

    private static KeyPair readKeyPair(String text, Path file, boolean needPublic) throws IOException {
        KeyHalves halves = readKeyHalves(text, file);
        PrivateKey priv = halves.privateKey();
        PublicKey pub = halves.publicKey();
        if (needPublic && (pub == null || !matches(priv, pub))) {
            throw new PemException(file, pub == null ? "no public key beside the private key"
                    : "the public key does not belong to the private key");
        }
        return new KeyPair(pub, priv);
    }

    /**
     * What a key file holds: its first private key (never null), the public key beside it (a {@code PUBLIC KEY}
     * block, or the one in a SEC1/PKCS#1 key; else null) and the public key inside the private key's own structure
     * (SEC1/PKCS#1, or PKCS#8 EC, RSA or v2; null when there is none), unchecked.
     */
    private record KeyHalves(PrivateKey privateKey, PublicKey publicKey, SubjectPublicKeyInfo carried) {
    }

    private static KeyHalves readKeyHalves(String text, Path file) throws IOException {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        PrivateKey priv = null;
        PublicKey pub = null;
        SubjectPublicKeyInfo carried = null;
        try {
            for (Object o : parse(text, file)) {
                if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
                    throw new PemException(file, "the private key is encrypted; Usher needs it unencrypted "
                            + "(openssl pkey -in FILE -out PLAIN)");
                } else if (o instanceof PrivateKeyInfo info && priv == null) {
                    priv = jdkPrivateKey(info, converter);
                    carried = publicKeyInside(info);
                } else if (o instanceof PEMKeyPair pair && priv == null) {
                    priv = jdkPrivateKey(pair.getPrivateKeyInfo(), converter);
                    if (pair.getPublicKeyInfo() != null) {
                        pub = jdkPublicKey(pair.getPublicKeyInfo(), converter);
                        carried = pair.getPublicKeyInfo();
                    }
                } else if (o instanceof SubjectPublicKeyInfo info && pub == null) {
                    pub = jdkPublicKey(info, converter); // a block of its own: not trusted as the key's half
                }
            }
        } catch (org.bouncycastle.openssl.PEMException | RuntimeException e) {
            throw new PemException(file, "unreadable key: " + e.getMessage(), e);
        }
        if (priv == null) {
            throw new PemException(file, "no private key found (expected a -----BEGIN PRIVATE KEY----- block)");
        }
        return new KeyHalves(priv, pub, carried);
    }

    /**
     * The public key inside a PKCS#8 private key: the optional one of PKCS#8 v2 (Ed25519), of an EC key's SEC1
     * structure, or an RSA key's modulus and exponent; null when it holds none (the JDK writes EC keys without).
     */
    private static SubjectPublicKeyInfo publicKeyInside(PrivateKeyInfo info) {
        try {
            AlgorithmIdentifier algorithm = info.getPrivateKeyAlgorithm();
            if (info.getPublicKeyData() != null) {
                return new SubjectPublicKeyInfo(algorithm, info.getPublicKeyData().getBytes());
            }
            if (X9ObjectIdentifiers.id_ecPublicKey.equals(algorithm.getAlgorithm())) {
                ASN1BitString point = org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(info.parsePrivateKey())
                        .getPublicKey();
                return point == null ? null : new SubjectPublicKeyInfo(algorithm, point.getBytes());
            }
            if (PKCSObjectIdentifiers.rsaEncryption.equals(algorithm.getAlgorithm())) {
                RSAPrivateKey rsa = RSAPrivateKey.getInstance(info.parsePrivateKey());
                return new SubjectPublicKeyInfo(new AlgorithmIdentifier(PKCSObjectIdentifiers.rsaEncryption,
                        DERNull.INSTANCE), new RSAPublicKey(rsa.getModulus(), rsa.getPublicExponent()));
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // nothing usable to compare: the signature check decides
        }
    }

    /**
     * The key as the JDK's own providers make it (Bouncy Castle's converter would hand back its own key classes once
     * it is a registered provider, which ACME does, and those encode differently); Bouncy Castle's otherwise.
     */
    private static PrivateKey jdkPrivateKey(PrivateKeyInfo info, JcaPEMKeyConverter converter)
            throws IOException {
        String algorithm = jdkAlgorithm(info.getPrivateKeyAlgorithm().getAlgorithm().getId());
        if (algorithm != null) {
            try {
                return java.security.KeyFactory.getInstance(algorithm)
                        .generatePrivate(new java.security.spec.PKCS8EncodedKeySpec(info.getEncoded()));
            } catch (GeneralSecurityException e) {
                // fall through to Bouncy Castle
            }
        }
        return converter.getPrivateKey(info);
    }

    private static PublicKey jdkPublicKey(SubjectPublicKeyInfo info, JcaPEMKeyConverter converter)
            throws IOException {
        String algorithm = jdkAlgorithm(info.getAlgorithm().getAlgorithm().getId());
        if (algorithm != null) {
            try {
                return java.security.KeyFactory.getInstance(algorithm)
                        .generatePublic(new java.security.spec.X509EncodedKeySpec(info.getEncoded()));
            } catch (GeneralSecurityException e) {
                // fall through to Bouncy Castle
            }
        }
        return converter.getPublicKey(info);
    }

    private static String jdkAlgorithm(String oid) {
        return switch (oid) {
            case "1.2.840.10045.2.1" -> "EC";
            case "1.2.840.113549.1.1.1" -> "RSA";
            case "1.3.101.112" -> "Ed25519";
            case "1.3.101.113" -> "Ed448";
            default -> null;
        };
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.ISO_8859_1);
    }

    private static List<Object> parse(String text, Path file) throws IOException {
        List<Object> objects = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(text))) {
            for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
                objects.add(o);
            }
        } catch (IOException | RuntimeException e) {
            // PEMParser reports truncated and garbled blocks as IOExceptions: content, not I/O, problems here
            throw new PemException(file, "damaged PEM: " + e.getMessage(), e);
        }
        return objects;
    }

    private static String block(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
