package dev.usher.migrate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads the files of a source set-up, with a size bound and a clear error for a missing or unreadable one. */
final class SourceFiles {
    /** Config files, certificates and keys are kilobytes; an acme.json with hundreds of names a few megabytes. */
    static final long MAX_SIZE = 64L << 20;

    private SourceFiles() {
    }

    /** The file's text (UTF-8). */
    static String text(Path file) throws ImportException {
        return new String(bytes(file), StandardCharsets.UTF_8);
    }

    /** The file's text read as Latin-1, which keeps every byte of a PEM file as it is. */
    static String pem(Path file) throws ImportException {
        return new String(bytes(file), StandardCharsets.ISO_8859_1);
    }

    static byte[] bytes(Path file) throws ImportException {
        try {
            if (Files.size(file) > MAX_SIZE) {
                throw new ImportException(file + " is over " + (MAX_SIZE >> 20) + " MiB: not a file usher import "
                        + "reads");
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new ImportException("cannot read " + file + ": no such file");
        } catch (IOException e) {
            throw new ImportException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
