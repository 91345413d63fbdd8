package dev.usher.admin;

import dev.usher.files.AtomicFiles;

import java.io.ByteArrayInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The backup archive: {@code usher.yaml} (the config file as it is) and {@code data/...} (the data directory with
 * file modes; lock files, temporary files and the config's own numbered backups left out). Restoring writes each
 * data file atomically, with mode 0600 when the archive says others could not read it, and always for keys.
 */
final class Backups {
    static final String CONFIG = "usher.yaml";
    static final String DATA = "data/";
    /** The largest archive accepted, packed or unpacked. */
    static final long LIMIT = 64L << 20;

    /** What a restore brings: the config file's bytes and the data files. */
    record Contents(byte[] config, List<TarGz.Entry> data) {
    }

    private Backups() {
    }

    /**
     * Writes the archive of {@code config} (its bytes) and the folder {@code dataDir} to a new temporary file (0600:
     * it holds keys) and returns it; only one data file at a time is in memory.
     */
    static Path createFile(byte[] config, Path dataDir) throws IOException {
        Path temp = Files.createTempFile("usher-backup-", ".tar.gz",
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp))) {
            TarGz.write(out, entries(config, dataDir));
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return temp;
    }

    /** The archive in memory (tests). */
    static byte[] create(byte[] config, Path dataDir) throws IOException {
        return TarGz.bytes(entries(config, dataDir));
    }

    /** The entries, each data file read only when the archive writer reaches it. */
    private static List<TarGz.Entry> entries(byte[] config, Path dataDir) throws IOException {
        List<TarGz.Entry> entries = new ArrayList<>();
        long now = System.currentTimeMillis() / 1000;
        entries.add(new TarGz.Entry(CONFIG, 0600, now, false, config));
        long[] total = {config.length};
        if (Files.isDirectory(dataDir)) {
            Files.walkFileTree(dataDir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    if (!dir.equals(dataDir)) {
                        if (dir.getFileName().toString().equals(ConfigFile.BACKUPS)) {
                            return FileVisitResult.SKIP_SUBTREE;
                        }
                        entries.add(new TarGz.Entry(name(dir), mode(dir), attrs.lastModifiedTime().toMillis() / 1000,
                                true, new byte[0]));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    String fileName = file.getFileName().toString();
                    if (!attrs.isRegularFile() || fileName.endsWith(".lock") || fileName.contains(".tmp-")) {
                        return FileVisitResult.CONTINUE;
                    }
                    total[0] += attrs.size();
                    if (total[0] > LIMIT) {
                        throw new IOException("the data directory is larger than " + (LIMIT >> 20) + " MiB");
                    }
                    entries.add(new TarGz.Entry(name(file), mode(file), attrs.lastModifiedTime().toMillis() / 1000,
                            false, null, file, attrs.size()));
                    return FileVisitResult.CONTINUE;
                }

                private String name(Path p) {
                    return DATA + dataDir.relativize(p).toString().replace('\\', '/');
                }
            });
        }
        return entries;
    }

    /** Reads an archive made by {@link #create}; refuses anything else. */
    static Contents read(byte[] archive) throws IOException {
        List<TarGz.Entry> entries = TarGz.read(new ByteArrayInputStream(archive), LIMIT);
        byte[] config = null;
        List<TarGz.Entry> data = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (TarGz.Entry e : entries) {
            // one name twice: which copy wins would be a guess (a file and a folder of one name cannot both be)
            if (!seen.add(e.name())) {
                throw new TarGz.BadArchive("\"" + e.name() + "\" is in the archive twice");
            }
            if (e.name().equals(CONFIG) && !e.directory()) {
                config = e.content();
            } else if (e.name().startsWith(DATA) && e.name().length() > DATA.length()) {
                data.add(new TarGz.Entry(e.name().substring(DATA.length()), e.mode(), e.mtimeSeconds(),
                        e.directory(), e.content()));
            } else if (!(e.name().equals("data") && e.directory())) {
                throw new TarGz.BadArchive("unexpected entry \"" + e.name() + "\": a backup holds usher.yaml and "
                        + "data/ only");
            }
        }
        if (config == null) {
            throw new TarGz.BadArchive("the archive has no usher.yaml");
        }
        return new Contents(config, data);
    }

    /**
     * Writes the data files into {@code dataDir} (each atomically); existing files not in the archive stay. Gives
     * what puts the replaced files back and removes the new ones (a restore whose reload fails changes nothing);
     * a failure half-way has already done so.
     */
    static ConfigFile.Undo restoreData(List<TarGz.Entry> data, Path dataDir) throws IOException {
        Path root = dataDir.toAbsolutePath().normalize();
        List<ConfigFile.Undo> undos = new ArrayList<>();
        ConfigFile.Undo undo = () -> {
            for (int i = undos.size() - 1; i >= 0; i--) {
                undos.get(i).run();
            }
        };
        try {
            for (TarGz.Entry e : data) {
                Path target = root.resolve(e.name()).normalize();
                if (!target.startsWith(root) || target.equals(root)) {
                    throw new TarGz.BadArchive("refused entry \"" + e.name() + "\"");
                }
                if (e.directory()) {
                    AtomicFiles.createDirectories(target);
                    continue;
                }
                if (Files.isRegularFile(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    byte[] old = Files.readAllBytes(target);
                    boolean oldSecret = (mode(target) & 077) == 0;
                    undos.add(() -> AtomicFiles.write(target, old, oldSecret));
                } else {
                    undos.add(() -> Files.deleteIfExists(target));
                }
                // a key stays private whatever mode a (hand-made) archive claims for it
                boolean secret = (e.mode() & 077) == 0 || e.name().endsWith(".key");
                AtomicFiles.write(target, e.content(), secret);
            }
        } catch (IOException | RuntimeException e) {
            undo.run();
            throw e;
        }
        return undo;
    }

    private static int mode(Path p) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            int mode = 0;
            for (PosixFilePermission perm : perms) {
                mode |= 1 << (8 - perm.ordinal());
            }
            return mode;
        } catch (IOException | UnsupportedOperationException e) {
            return 0600;
        }
    }
}
