package dev.usher.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Crash-safe file writes: a reader sees either the old content or the whole new content, never a mix, and after
 * {@link #write} returns the new content survives a power cut. Used for certificates, keys and the config file.
 *
 * <p>How: the bytes go to a temporary file in the same folder, created with its final permissions from the start
 * (0600 for secrets, 0644 otherwise, so a key is never readable by others even for a moment), forced to disk, renamed
 * over the target in one atomic step, and then the folder itself is forced so the rename is durable too.
 * Folders created on the way get 0700. On file systems without POSIX permissions the modes are skipped.
 */
public final class AtomicFiles {
    private AtomicFiles() {
    }

    /**
     * Replaces {@code target} with {@code data} atomically and durably.
     *
     * @param secret true for private keys: the file is created 0600 rather than 0644
     * @throws IOException when the folder cannot be created or written; the target is then unchanged and no
     *                     temporary file is left behind
     */
    public static void write(Path target, byte[] data, boolean secret) throws IOException {
        commit(writeTemp(target, data, secret), target);
    }

    /**
     * Creates {@code dir} and any missing parents with mode 0700. Existing folders are left as they are: they may be
     * the user's.
     */
    public static void createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        if (Files.isDirectory(absolute)) {
            return;
        }
        Path parent = absolute.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        try {
            Files.createDirectory(absolute, attributes(absolute, "rwx------"));
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(absolute)) {
                throw e;
            }
        }
    }

    /** Writes {@code data} to a new, forced temporary file beside {@code target}; {@link #commit} puts it in place. */
    public static Path writeTemp(Path target, byte[] data, boolean secret) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        createDirectories(dir);
        Path temp = dir.resolve("." + target.getFileName() + ".tmp-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
        try (FileChannel ch = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), attributes(dir, secret ? "rw-------" : "rw-r--r--"))) {
            ByteBuffer buf = ByteBuffer.wrap(data);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return temp;
    }

    /** Renames a file made by {@link #writeTemp} over {@code target} and forces the folder. */
    public static void commit(Path temp, Path target) throws IOException {
        try {
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                // same folder, so this only happens on odd file systems; a plain replace is the best left
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        syncDirectory(target.toAbsolutePath().getParent());
    }

    /** Forces a folder's entries to disk so a rename in it survives a crash; a no-op where that is refused. */
    static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException e) {
            // some file systems (and Windows) do not open or sync folders; the rename is as durable as they allow
        }
    }

    /** The POSIX {@code mode} (as in {@code rw-------}) as creation attributes, or none where it has no meaning. */
    public static FileAttribute<?>[] attributes(Path where, String mode) {
        if (!where.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode))};
    }
}
