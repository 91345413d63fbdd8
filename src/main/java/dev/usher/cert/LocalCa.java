package dev.usher.cert;

import dev.usher.files.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Locale;

/**
 * Usher's own certificate authority for names no public CA can validate ({@link dev.usher.config.LocalNames#isLocal}): a root made
 * once per data directory ({@code ca/root.pem}, {@code ca/root.key}) that signs seven-day leaves on demand. Browsers
 * trust the leaves once the user trusts {@link #rootCertificate()} (for example with {@code usher trust}).
 * Thread-safe.
 */
public final class LocalCa implements Issuer {
    private static final System.Logger LOG = System.getLogger(LocalCa.class.getName());
    /** The issuer id: the folder under {@code certificates/} for the leaves. */
    public static final String ID = "local";

    private final Path rootFile;
    private final X509Certificate root;
    private final PrivateKey rootKey;
    private final CaCertificates certificates;
    /** Where leaves' validity starts: the system clock, or a test's. */
    private final Clock clock;

    private LocalCa(Path rootFile, X509Certificate root, PrivateKey rootKey, CaCertificates certificates,
                    Clock clock) {
        this.rootFile = rootFile;
        this.root = root;
        this.rootKey = rootKey;
        this.certificates = certificates;
        this.clock = clock;
    }

    /**
     * The local CA of {@code store}'s data directory: its root is read, or created (and saved, key 0600) if there is
     * none yet. A damaged root is moved aside and replaced, with a warning that clients must trust the new one.
     */
    public static LocalCa open(CertStore store) throws IOException {
        return open(store, Clock.systemUTC());
    }

    /** As {@link #open(CertStore)}, with validity periods starting at {@code clock}'s time. */
    static LocalCa open(CertStore store, Clock clock) throws IOException {
        CaCertificates certificates = new CaCertificates();
        Path certFile = store.caDir().resolve("root.pem");
        Path keyFile = store.caDir().resolve("root.key");
        try (NameLock lock = store.lockCa()) { // two processes starting at once must not make two roots
            if (Files.exists(certFile)) {
                try {
                    CertifiedKey existing = Pem.readCertifiedKey(certFile, keyFile);
                    return new LocalCa(certFile, existing.leaf(), existing.key(), certificates, clock);
                } catch (PemException | NoSuchFileException e) {
                    store.moveAside("the local CA root is damaged: " + e.getMessage()
                            + "; a new root is made and clients must be told to trust it", certFile, keyFile);
                }
            }
            KeyPair key = CertStore.newEcKeyPair();
            X509Certificate root = certificates.root(key, clock.instant());
            AtomicFiles.write(keyFile, Pem.privateKey(key.getPrivate()).getBytes(StandardCharsets.US_ASCII), true);
            AtomicFiles.write(certFile, Pem.certificates(List.of(root)).getBytes(StandardCharsets.US_ASCII), false);
            LOG.log(System.Logger.Level.INFO, "created the local CA {0} in {1}; trust it to use local HTTPS",
                    root.getSubjectX500Principal().getName(), certFile);
            return new LocalCa(certFile, root, key.getPrivate(), certificates, clock);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make the local CA root", e);
        }
    }

    /** {@value #ID}. */
    @Override
    public String id() {
        return ID;
    }

    /** The root certificate's PEM file, for users to add to their trust stores. */
    public Path rootCertificate() {
        return rootFile;
    }

    /** The root certificate. */
    public X509Certificate root() {
        return root;
    }

    /**
     * A new leaf for {@code name} (a DNS name, a {@code *.} wildcard, an IPv4 or IPv6 literal) with a new EC P-256
     * key, valid for seven days; the chain is [leaf, root].
     */
    @Override
    public CertifiedKey issue(String name) throws IssueException {
        String n = name.toLowerCase(Locale.ROOT);
        try {
            KeyPair key = CertStore.newEcKeyPair();
            X509Certificate leaf = certificates.leaf(n, key.getPublic(), root, rootKey, clock.instant());
            return new CertifiedKey(List.of(leaf, root), key.getPrivate());
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IssueException("the local CA cannot issue a certificate for " + name + ": " + e.getMessage(), e);
        }
    }
}
