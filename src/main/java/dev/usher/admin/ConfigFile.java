package dev.usher.admin;

import dev.usher.files.AtomicFiles;
import dev.usher.config.ConfigEditor;
import dev.usher.config.ConfigError;
import dev.usher.config.ConfigException;
import dev.usher.config.ConfigLoader;
import dev.usher.reload.ReloadResult;
import dev.usher.reload.Reloader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The config file as the admin API reads and writes it. Its version is the hex SHA-256 of its bytes. A write runs
 * one at a time (this object's lock) and, under that lock: checks the caller's version against the bytes on disk
 * (a hand edit since the caller read the file makes it stale), applies the edit to those bytes, validates the result
 * with the loader of {@code usher check}, keeps the bytes it replaces as backup 1 in {@code <data>/config-backups}
 * (older ones move up to 10; the 11th is dropped), writes the new bytes atomically (temp file, fsync, rename) and
 * reloads. A reload that fails even so (a port that cannot be bound) puts the previous bytes back: the file and the
 * running config never disagree.
 */
final class ConfigFile {
    static final int KEPT = 10;
    static final String BACKUPS = "config-backups";

    /** Changes the file's text; may refuse. */
    @FunctionalInterface
    interface Edit {
        byte[] apply(byte[] current) throws ConfigEditor.EditException;
    }

    /**
     * Work done after validation and before the config is written (a restore's data files); gives what undoes it
     * when the write or its reload then fails.
     */
    @FunctionalInterface
    interface Before {
        Undo run() throws IOException;
    }

    /** Puts back what a {@link Before} changed. */
    @FunctionalInterface
    interface Undo {
        void run() throws IOException;
    }

    /** The file as read: its bytes and version. */
    record Snapshot(Path path, byte[] bytes, String version) {
        String text() {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** How a write ended. */
    sealed interface Outcome permits Written, Stale, Invalid, Refused, ReadOnly {
    }

    /** Written and reloaded. */
    record Written(String version, ReloadResult reload) implements Outcome {
    }

    /** The caller's version is not the file's any more. */
    record Stale(String current) implements Outcome {
    }

    /** The new config has errors (or could not be applied); the file is as it was. */
    record Invalid(List<ConfigError> errors) implements Outcome {
    }

    /** The edit itself was refused (no such site, name taken, file not editable). */
    record Refused(ConfigEditor.EditException why) implements Outcome {
    }

    /** The file or its folder may not be written (read-only mode, a read-only mount); nothing was changed. */
    record ReadOnly(String why) implements Outcome {
    }

    private final Supplier<Reloader> reloader;
    private final Supplier<Path> dataDir;

    /** {@code reloader}: gives null when Usher was not started from a file; {@code dataDir}: the running one's. */
    ConfigFile(Supplier<Reloader> reloader, Supplier<Path> dataDir) {
        this.reloader = reloader;
        this.dataDir = dataDir;
    }

    /** The config file, or null when Usher was not started from one. */
    Path path() {
        Reloader r = reloader.get();
        return r == null ? null : r.file();
    }

    Snapshot read() throws IOException {
        Path file = path();
        byte[] bytes = Files.readAllBytes(file);
        return new Snapshot(file, bytes, version(bytes));
    }

    /** Where the numbered backups of the config file go. */
    Path backups() {
        return dataDir.get().resolve(BACKUPS);
    }

    /** Writes the edited file if {@code ifMatch} is its version; see the class comment. */
    synchronized Outcome write(String ifMatch, Edit edit, Before before) throws IOException {
        Snapshot current = read();
        if (!current.version().equals(ifMatch)) {
            return new Stale(current.version());
        }
        byte[] next;
        try {
            next = edit.apply(current.bytes());
        } catch (ConfigEditor.EditException e) {
            return new Refused(e);
        }
        try {
            ConfigLoader.parse(next, current.path());
        } catch (ConfigException e) {
            return new Invalid(e.errors());
        }
        // a symlinked config (kept in a git checkout elsewhere, say) stays a symlink: its target is replaced
        Path target = current.path().toRealPath();
        String readOnly = readOnly(target);
        if (readOnly != null) {
            return new ReadOnly(readOnly);
        }
        Undo undo = before == null ? () -> { } : before.run();
        // The bytes replaced are kept aside first (a crash leaves them there) and become backup 1 only once the
        // new file is in place and running: a write that fails must not push the oldest backup out.
        Path pending = keepPending(current);
        boolean secret = isPrivate(target);
        try {
            AtomicFiles.write(target, next, secret);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(pending);
            undo.run();
            throw e;
        }
        ReloadResult result = reloader.get().reload("admin API");
        if (!result.ok()) {
            AtomicFiles.write(target, current.bytes(), secret);
            Files.deleteIfExists(pending);
            undo.run();
            return new Invalid(result.errors());
        }
        rotate(pending, current.path().getFileName().toString());
        return new Written(version(next), result);
    }

    /** Why {@code file} must not be rewritten (its mode says read-only, or it or its folder is not writable). */
    private static String readOnly(Path file) {
        try {
            if (!Files.getPosixFilePermissions(file).contains(PosixFilePermission.OWNER_WRITE)) {
                return "the config file " + file + " is read-only (mode " + java.nio.file.attribute
                        .PosixFilePermissions.toString(Files.getPosixFilePermissions(file)) + "); make it "
                        + "writable to edit it here";
            }
        } catch (IOException | UnsupportedOperationException e) {
            // no POSIX modes: the checks below decide
        }
        if (!Files.isWritable(file) || !Files.isWritable(file.getParent())) {
            return "the config file " + file + " or its folder is read-only (a read-only mount, such as a "
                    + "Kubernetes ConfigMap?); edit it where it comes from";
        }
        return null;
    }

    /** The bytes about to be replaced, kept beside the numbered backups until the write succeeds. */
    private Path keepPending(Snapshot current) throws IOException {
        Path dir = backups();
        AtomicFiles.createDirectories(dir);
        Path pending = dir.resolve(current.path().getFileName() + ".pending");
        AtomicFiles.write(pending, current.bytes(), true);
        return pending;
    }

    /** Backup 1 is the newest; each write moves the others up by one and drops the one past {@link #KEPT}. */
    private static void rotate(Path pending, String name) throws IOException {
        Path dir = pending.getParent();
        Files.deleteIfExists(dir.resolve(name + "." + KEPT));
        for (int n = KEPT - 1; n >= 1; n--) {
            Path from = dir.resolve(name + "." + n);
            if (Files.exists(from)) {
                Files.move(from, dir.resolve(name + "." + (n + 1)), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(pending, dir.resolve(name + ".1"), StandardCopyOption.ATOMIC_MOVE);
    }

    /** True when others cannot read the file now: the rewritten file is 0600 then (never wider than before). */
    private static boolean isPrivate(Path file) {
        try {
            Set<PosixFilePermission> modes = Files.getPosixFilePermissions(file);
            return !modes.contains(PosixFilePermission.OTHERS_READ);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    static String version(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code "abc"}, {@code W/"abc"} or {@code abc} → {@code abc}; null stays null. */
    static String unquote(String ifMatch) {
        if (ifMatch == null) {
            return null;
        }
        String v = ifMatch.strip();
        if (v.startsWith("W/")) {
            v = v.substring(2);
        }
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
            v = v.substring(1, v.length() - 1);
        }
        return v;
    }
}
