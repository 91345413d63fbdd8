package dev.usher.migrate;

import java.nio.file.Path;
import java.util.List;

/**
 * A certificate and key found in the source set-up, as PEM text, not yet checked.
 *
 * @param origin     where it was found (for the list of what was not imported)
 * @param names      the names the source keeps it for (may be empty: then the certificate's own names count)
 * @param certPem    the chain, leaf first
 * @param certSource where the chain was read from, for messages
 * @param keyPem     the private key
 * @param keySource  where the key was read from, for messages
 * @param kind       who renews it
 * @param files      for {@link Kind#USER_FILES}: the certificate and key files to point {@code tls:} at; else null
 */
public record FoundCertificate(Origin origin, List<String> names, String certPem, String certSource, String keyPem,
                               String keySource, Kind kind, Files files) {
    public FoundCertificate {
        names = List.copyOf(names);
    }

    /** Who renews the certificate, which decides where Usher keeps it. */
    public enum Kind {
        /** Issued by an ACME CA: stored in the data directory, where Usher's ACME issuer renews it when due. */
        ACME,
        /** The user's own files, referenced where they are ({@code tls: {cert, key}}); the user renews them. */
        USER_FILES,
        /** Uploaded into the source tool: copied into the data directory and referenced as files there. */
        UPLOADED
    }

    /** A certificate file and its key file. */
    public record Files(Path cert, Path key) {
    }

    /** A certificate an ACME CA issued. */
    public static FoundCertificate acme(Origin origin, List<String> names, String certPem, String certSource,
                                        String keyPem, String keySource) {
        return new FoundCertificate(origin, names, certPem, certSource, keyPem, keySource, Kind.ACME, null);
    }

    /** A certificate uploaded into the source tool. */
    public static FoundCertificate uploaded(Origin origin, List<String> names, String certPem, String certSource,
                                            String keyPem, String keySource) {
        return new FoundCertificate(origin, names, certPem, certSource, keyPem, keySource, Kind.UPLOADED, null);
    }
}
