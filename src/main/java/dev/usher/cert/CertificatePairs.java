package dev.usher.cert;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code tls: {cert, key}} pairs as last read, so that names sharing one pair of files (a wildcard or multi-name
 * certificate) read and check it once, not once per name: the key check signs and verifies, which is slow on a cold
 * start. Sharing the {@link CertifiedKey} object also lets the TLS side build one context for all those names.
 *
 * <p>A pair is read again when either file's last-modified time differs from the one it was read at; a pair that
 * cannot be read is not remembered, so each name reports the error itself. Thread-safe.
 */
final class CertificatePairs {
    private record Files(Path cert, Path key) {
    }

    private record Loaded(long certModified, long keyModified, CertifiedKey pair) {
    }

    private final Map<Files, Loaded> loaded = new HashMap<>();

    /**
     * The pair in {@code certFile} and {@code keyFile}, which were last modified at the times given: the one read
     * before at those times, or read now.
     *
     * @throws IOException as {@link Pem#readCertifiedKey} does
     */
    synchronized CertifiedKey read(Path certFile, Path keyFile, long certModified, long keyModified)
            throws IOException {
        Files files = new Files(certFile.toAbsolutePath().normalize(), keyFile.toAbsolutePath().normalize());
        Loaded known = loaded.get(files);
        if (known != null && known.certModified == certModified && known.keyModified == keyModified) {
            return known.pair;
        }
        loaded.remove(files);
        CertifiedKey pair = Pem.readCertifiedKey(certFile, keyFile);
        loaded.put(files, new Loaded(certModified, keyModified, pair));
        return pair;
    }
}
