package dev.usher.upstream;

import io.netty.handler.ssl.SslHandshakeTimeoutException;

import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;

/**
 * Names why a TLS handshake with a backend failed, in the words of a log line: the certificate expired, does not
 * match the name, comes from a CA nobody trusts, or something else the exception says.
 */
final class TlsFailures {
    private TlsFailures() {
    }

    /** {@code "certificate expired"}, {@code "certificate not valid for 10.0.0.5 (wrong name)"}… */
    static String describe(Throwable failure, String name) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage() == null ? "" : t.getMessage();
            String lower = message.toLowerCase(Locale.ROOT);
            if (t instanceof CertificateExpiredException || lower.contains("notafter")
                    || lower.contains("certificate_expired") || lower.contains("certificate expired")) {
                return "certificate expired";
            }
            if (t instanceof CertificateNotYetValidException || lower.contains("notbefore")) {
                return "certificate not yet valid";
            }
            if (lower.contains("no subject alternative") || lower.contains("no name matching")
                    || lower.contains("hostname") && lower.contains("mismatch")) {
                return "certificate not valid for " + name + " (wrong name)";
            }
            if (lower.contains("unable to find valid certification path") || lower.contains("pkix path building")
                    || lower.contains("unable to get local issuer") || lower.contains("self-signed certificate")
                    || lower.contains("self signed certificate")) {
                return "certificate signed by an unknown CA (give upstream_tls.ca, or insecure_skip_verify)";
            }
            if (t instanceof SslHandshakeTimeoutException) {
                return "TLS handshake timed out";
            }
        }
        String message = failure.getMessage();
        return "TLS handshake failed: " + (message == null ? failure.getClass().getSimpleName() : message);
    }
}
