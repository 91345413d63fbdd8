package dev.usher.cert;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A PEM file could be read but its content is unusable: no certificate in it, a truncated block, an encrypted key, a
 * key that does not belong to the certificate. The message names the file and the problem.
 */
final class PemException extends IOException {
    private static final long serialVersionUID = 1L;

    PemException(Path file, String problem) {
        super(file + ": " + problem);
    }

    PemException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
    }
}
