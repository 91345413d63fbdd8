package dev.usher.cert;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Locale;

/**
 * {@code tls: {cert: FILE, key: FILE}}: loads the pair when either file changed since the last look, and keeps the
 * previous pair in service when the new one cannot be used (a half-copied key, a garbage file).
 */
final class CertificateFiles {
    private static final System.Logger LOG = System.getLogger(CertificateFiles.class.getName());
    /** Certificate chains and keys are a few KiB; anything this big is not one (and must not fill the heap). */
    private static final long MAX_SIZE = 1024 * 1024;

    private CertificateFiles() {
    }

    /**
     * Looks at {@code m}'s files and puts a changed, valid pair in service (read through {@code pairs}, which
     * names sharing the files share). Never throws.
     */
    static void reload(ManagedName m, CertificatePairs pairs) {
        Path certFile = m.policy.cert();
        Path keyFile = m.policy.key();
        long certModified;
        long keyModified;
        try {
            certModified = Files.getLastModifiedTime(certFile).toMillis();
            keyModified = Files.getLastModifiedTime(keyFile).toMillis();
        } catch (IOException e) {
            if (m.certModified != -1) {
                LOG.log(Level.WARNING, "{0}: cannot read the certificate files {1} and {2}: {3}{4}", m.name, certFile,
                        keyFile, e.toString(), served(m));
                m.certModified = -1;
            }
            return;
        }
        if (certModified == m.certModified && keyModified == m.keyModified) {
            return;
        }
        // remembered before reading: a copy that finishes after this look is seen by the next one
        m.certModified = certModified;
        m.keyModified = keyModified;
        try {
            if (Files.size(certFile) > MAX_SIZE || Files.size(keyFile) > MAX_SIZE) {
                throw new IOException("a file is over 1 MiB: not a certificate or key");
            }
            CertifiedKey cert = pairs.read(certFile, keyFile, certModified, keyModified);
            m.current = cert;
            m.currentSince = java.time.Instant.now();
            LOG.log(Level.INFO, "{0}: certificate loaded from {1} (sha256 {2}…, valid until {3})", m.name, certFile,
                    cert.sha256().substring(0, 16), cert.notAfter());
            if (!covers(cert.leaf(), m.name)) {
                LOG.log(Level.WARNING, "{0}: the certificate in {1} does not name {0}; browsers will refuse it",
                        m.name, certFile);
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "{0}: cannot use the certificate files {1} and {2}: {3}{4}", m.name, certFile,
                    keyFile, e.getMessage(), served(m));
        }
    }

    private static String served(ManagedName m) {
        return m.current == null ? "; TLS handshakes for this name fail"
                : "; the previously loaded certificate is still served";
    }

    /** True when a DNS or IP subject alternative name of {@code leaf} matches {@code name} (wildcards too). */
    static boolean covers(X509Certificate leaf, String name) {
        try {
            if (leaf.getSubjectAlternativeNames() == null) {
                return false;
            }
            for (List<?> san : leaf.getSubjectAlternativeNames()) {
                String value = String.valueOf(san.get(1)).toLowerCase(Locale.ROOT);
                if (Integer.valueOf(7).equals(san.get(0)) && dev.usher.config.LocalNames.isIpAddress(name)) {
                    if (java.net.InetAddress.getByName(value).equals(java.net.InetAddress.getByName(name))) {
                        return true;
                    }
                } else if (value.equals(name) || value.startsWith("*.") && name.indexOf('.') > 0
                        && value.substring(1).equals(name.substring(name.indexOf('.')))) {
                    return true;
                }
            }
            return false;
        } catch (CertificateParsingException | java.net.UnknownHostException e) {
            return false;
        }
    }
}
