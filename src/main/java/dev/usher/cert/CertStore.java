package dev.usher.cert;

import dev.usher.files.AtomicFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Everything Usher keeps on disk, in one data directory:
 * <pre>
 * DATA/                      (created 0700 if missing)
 *   accounts/&lt;issuerId&gt;/account.key        ACME account key pair, PEM (PKCS#8 private key), mode 0600
 *   certificates/&lt;issuerId&gt;/&lt;name&gt;/cert.pem   chain, leaf first
 *   certificates/&lt;issuerId&gt;/&lt;name&gt;/key.pem    leaf private key PEM, 0600
 *   certificates/&lt;issuerId&gt;/&lt;name&gt;/meta.json  {"name":..,"issuer":..,"sha256":..,"notBefore":..,"notAfter":..,"savedAt":..}
 *   ca/root.pem, ca/root.key (0600)         the local CA (see LocalCa)
 *   locks/&lt;issuerId&gt;/&lt;name&gt;.lock
 * </pre>
 * {@code <name>} is the host name made file-name-safe: lower-case, {@code *.example.com} as
 * {@code wildcard_.example.com}, IPv6 {@code ::1} as {@code ipv6_--1}. {@code account.key} holds the PKCS#8
 * {@code PRIVATE KEY} block followed by its {@code PUBLIC KEY} block. Besides the per-name locks, {@code locks/}
 * holds {@code <issuerId>/_account.lock} and {@code _ca.lock}, held while those keys are created (names never start
 * with {@code _}, so these cannot collide). Folders Usher creates are 0700 and keys 0600;
 * every write is atomic and durable ({@link AtomicFiles}), so a crash leaves the old file or the new one.
 *
 * <p>Damaged files (unreadable PEM, a key that is not the certificate's) are never fatal: they are logged, renamed
 * to {@code FILE.damaged-MILLIS} and treated as absent, so the certificate or key is simply made again.
 * Thread-safe; several processes may share one directory, using {@link #tryLock} around ordering a certificate.
 */
public final class CertStore implements CertStorage {
    private static final System.Logger LOG = System.getLogger(CertStore.class.getName());
    private static final String CERT = "cert.pem";
    private static final String KEY = "key.pem";
    private static final String META = "meta.json";
    /** How long to wait for another process that is creating a shared key (account, CA): milliseconds of work. */
    private static final Duration CREATE_WAIT = Duration.ofSeconds(30);
    /** Pause before a second look at a mismatched pair, which may be another process's save half done. */
    private static final long RECHECK_MILLIS = 100;

    private final Path dataDir;

    /** A store over {@code dataDir}, which is created (0700) on the first write if missing. */
    public CertStore(Path dataDir) {
        this.dataDir = dataDir.toAbsolutePath().normalize();
        warnIfOpen(this.dataDir);
    }

    /** The data directory, absolute. */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * The stored certificate for {@code name} from {@code issuerId}, or empty when there is none or it was damaged
     * (then it is moved aside and logged, so the caller orders a new one).
     *
     * @throws UncheckedIOException when the files exist but cannot be read (permissions, I/O error)
     */
    @Override
    public Optional<CertifiedKey> load(String issuerId, String name) {
        Path dir = certDir(issuerId, name);
        Path certFile = dir.resolve(CERT);
        Path keyFile = dir.resolve(KEY);
        if (!Files.exists(certFile)) {
            return Optional.empty(); // a key alone is a first save cut short; the next save replaces it
        }
        try {
            try {
                return Optional.of(readPair(certFile, keyFile));
            } catch (PemException first) {
                Thread.sleep(RECHECK_MILLIS);
                return Optional.of(readPair(certFile, keyFile));
            }
        } catch (PemException e) {
            try {
                Optional<CertifiedKey> finished = finishInterruptedSave(issuerId, name, dir);
                if (finished.isPresent()) {
                    return finished;
                }
            } catch (IOException notFinished) {
                LOG.log(System.Logger.Level.DEBUG, "could not finish a save cut short in {0}: {1}", dir, notFinished);
            }
            moveAside(e.getMessage(), certFile, keyFile, dir.resolve(META));
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the certificate in " + dir + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading " + dir, e);
        }
    }

    /**
     * Stores {@code cert} for {@code name}, replacing what was there: key first, then the chain, then meta.json, each
     * atomically. Both PEM files are written out before either is renamed into place, to keep the moment a reader
     * could see a new key beside an old chain as short as possible (and {@link #load} checks the pair anyway).
     *
     * @throws IllegalArgumentException when the key is not the leaf's
     */
    @Override
    public void save(String issuerId, String name, CertifiedKey cert) throws IOException {
        if (!Pem.matches(cert.key(), cert.leaf().getPublicKey())) {
            throw new IllegalArgumentException("the private key is not the certificate's for " + name);
        }
        Path dir = certDir(issuerId, name);
        Path keyTemp = AtomicFiles.writeTemp(dir.resolve(KEY), ascii(Pem.privateKey(cert.key())), true);
        Path certTemp;
        try {
            certTemp = AtomicFiles.writeTemp(dir.resolve(CERT), ascii(Pem.certificates(cert.chain())), false);
            AtomicFiles.commit(keyTemp, dir.resolve(KEY));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(keyTemp);
            throw e;
        }
        AtomicFiles.commit(certTemp, dir.resolve(CERT));
        AtomicFiles.write(dir.resolve(META), Meta.json(name, issuerId, cert, Instant.now()), false);
    }

    /**
     * A {@link #save} stopped between its two renames (the process was killed) leaves the new key beside the old
     * chain, and the new chain whole, forced to disk, in its temporary file: this does the missing rename (and
     * rewrites meta.json). Empty when no temporary chain in {@code dir} pairs with the key.
     */
    private Optional<CertifiedKey> finishInterruptedSave(String issuerId, String name, Path dir) throws IOException {
        Path keyFile = dir.resolve(KEY);
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(dir, "." + CERT + ".tmp-*")) {
            for (Path temp : temps) {
                CertifiedKey pair;
                try {
                    pair = readPair(temp, keyFile);
                } catch (PemException notThisOne) {
                    continue; // a temporary file cut short, or an older one
                }
                AtomicFiles.commit(temp, dir.resolve(CERT));
                AtomicFiles.write(dir.resolve(META), Meta.json(name, issuerId, pair, Instant.now()), false);
                LOG.log(System.Logger.Level.INFO, "{0}: finished storing the certificate whose save was cut short "
                        + "between its key and its chain", name);
                return Optional.of(pair);
            }
        }
        return Optional.empty();
    }

    /** Removes the certificate, key and meta.json of {@code name}; nothing when there are none. */
    @Override
    public void delete(String issuerId, String name) throws IOException {
        Path dir = certDir(issuerId, name);
        Files.deleteIfExists(dir.resolve(CERT));
        Files.deleteIfExists(dir.resolve(KEY));
        Files.deleteIfExists(dir.resolve(META));
    }

    @Override
    public CertStore local() {
        return this;
    }

    @Override
    public String where() {
        return dataDir.toString();
    }

    /** The ACME account key for {@code issuerId}: read, or created (EC P-256) and saved 0600 the first time. */
    @Override
    public KeyPair accountKey(String issuerId) throws IOException {
        Path file = dataDir.resolve("accounts").resolve(StoreNames.checkIssuerId(issuerId)).resolve("account.key");
        Optional<KeyPair> existing = readAccountKey(file);
        if (existing.isPresent()) {
            return existing.get();
        }
        try (NameLock lock = waitFor(dataDir.resolve("locks").resolve(issuerId).resolve("_account.lock"))) {
            existing = readAccountKey(file); // another process may have made it while we waited
            if (existing.isPresent()) {
                return existing.get();
            }
            KeyPair pair = newEcKeyPair();
            AtomicFiles.write(file, ascii(Pem.privateKey(pair.getPrivate()) + Pem.publicKey(pair.getPublic())), true);
            LOG.log(System.Logger.Level.INFO, "created a new account key for {0} in {1}", issuerId, file);
            return pair;
        }
    }

    /**
     * The lock on ordering {@code name} from {@code issuerId}, if no other process or store holds it; empty when
     * held. Does not wait.
     */
    @Override
    public Optional<NameLock> tryLock(String issuerId, String name) throws IOException {
        return NameLock.tryAcquire(lockFile(issuerId, name));
    }

    /** Like {@link #tryLock} but waits up to {@code timeout} for the holder to let go. */
    public Optional<NameLock> lock(String issuerId, String name, Duration timeout)
            throws IOException, InterruptedException {
        return NameLock.acquire(lockFile(issuerId, name), timeout);
    }

    /** The names with a stored certificate from {@code issuerId}, sorted; damaged ones are included. */
    @Override
    public List<String> names(String issuerId) throws IOException {
        Path dir = dataDir.resolve("certificates").resolve(StoreNames.checkIssuerId(issuerId));
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve(CERT)))
                    .map(p -> StoreNames.decode(p.getFileName().toString()))
                    .sorted()
                    .toList();
        }
    }

    /** The local CA's folder. */
    Path caDir() {
        return dataDir.resolve("ca");
    }

    /** Waits for the lock that guards creating the local CA. */
    NameLock lockCa() throws IOException {
        return waitFor(dataDir.resolve("locks").resolve("_ca.lock"));
    }

    /** Renames each existing file to {@code FILE.damaged-MILLIS} and logs why; never throws. */
    void moveAside(String problem, Path... files) {
        long now = System.currentTimeMillis();
        List<Path> moved = new ArrayList<>();
        for (Path file : files) {
            Path aside = file.resolveSibling(file.getFileName() + ".damaged-" + now);
            try {
                if (Files.exists(file)) {
                    Files.move(file, aside);
                    moved.add(aside);
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not move damaged {0} aside: {1}", file, e);
            }
        }
        LOG.log(System.Logger.Level.WARNING, "{0}; moved aside as {1}, a new one will be made", problem, moved);
    }

    private Path certDir(String issuerId, String name) {
        return dataDir.resolve("certificates").resolve(StoreNames.checkIssuerId(issuerId))
                .resolve(StoreNames.encode(name));
    }

    private Path lockFile(String issuerId, String name) {
        return dataDir.resolve("locks").resolve(StoreNames.checkIssuerId(issuerId))
                .resolve(StoreNames.encode(name) + ".lock");
    }

    private static CertifiedKey readPair(Path certFile, Path keyFile) throws IOException {
        if (!Files.exists(keyFile)) {
            throw new PemException(keyFile, "missing beside " + certFile.getFileName());
        }
        return Pem.readCertifiedKey(certFile, keyFile);
    }

    private Optional<KeyPair> readAccountKey(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Pem.readKeyPair(file));
        } catch (PemException e) {
            moveAside(e.getMessage(), file);
            return Optional.empty();
        }
    }

    private static NameLock waitFor(Path lockFile) throws IOException {
        try {
            return NameLock.acquire(lockFile, CREATE_WAIT).orElseThrow(() -> new IOException(
                    lockFile + " is still held by another process after " + CREATE_WAIT.toSeconds() + "s"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + lockFile, e);
        }
    }

    /** A new EC P-256 key pair: the JDK's own, so it works with every TLS stack and CA. */
    static KeyPair newEcKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot make EC P-256 keys", e);
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void warnIfOpen(Path dir) {
        try {
            if (Files.isDirectory(dir) && dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                var perms = Files.getPosixFilePermissions(dir);
                if (perms.stream().anyMatch(p -> p != PosixFilePermission.OWNER_READ
                        && p != PosixFilePermission.OWNER_WRITE && p != PosixFilePermission.OWNER_EXECUTE)) {
                    LOG.log(System.Logger.Level.WARNING, "the data directory {0} is open to other users; "
                            + "it holds private keys (chmod 700 it)", dir);
                }
            }
        } catch (IOException e) {
            // only advice; the first real read or write reports the problem properly
        }
    }
}
